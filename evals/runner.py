"""Run systems over a bundle's questions, one durable result line per (question, system).

The run is resumable: `OUT/results.jsonl` is append-only (see `evals.results_log`), pairs
already done are skipped, and a run killed at any point loses at most the pairs in flight.
Several runners may share one out dir. Questions run on a thread pool: the systems share one
`CorpusIndex` per index (its query cache is locked; Chroma and numpy release the GIL and
tolerate concurrent reads), and the graph systems share one compiled graph per process.

Each line records the key it was computed under (`evals.run_key`: code, index build, system
settings). On resume only lines under the current key count as done; the others are run again
and the summary counts them by what differed. Graph systems' step traces go to a sidecar,
`OUT/traces.jsonl`, keyed the same way, so results.jsonl stays small.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.datasets.questions import EvalExample, QuestionProblem, load_questions
from evals.results_log import KEY_FIELD, RESULTS_FILE, Key, ResultsLog
from evals.run_config import RUN_CONFIG_FILE, write_run_config
from evals.run_key import RunKey, manifest_hash, run_key
from evals.shared_index import SharedIndex, shared_index
from evals.systems import RunConfig, System, make_system
from evals.traces import compact_trace
from state.settings import Backend
from tools.errors import (
    ConfigError,
    DatasetFormatError,
    IndexMismatchError,
    IndexNotFoundError,
    MissingDependencyError,
    ModelUnavailableError,
)

logger = logging.getLogger(__name__)

QUESTIONS_FILE = "questions.jsonl"
TRACES_FILE = "traces.jsonl"
"""Sidecar of results.jsonl: the step trace of each graph system's run, one line per pair."""
_FATAL = (
    ConfigError,
    MissingDependencyError,
    ModelUnavailableError,
    IndexMismatchError,
    IndexNotFoundError,
)
"""Errors that would repeat on every question: they end the run instead of being recorded."""


@dataclass(frozen=True)
class RunSummary:
    """What a run did and where it wrote it."""

    out_dir: Path
    results_path: Path
    run_config_path: Path
    systems: tuple[str, ...]
    examples: tuple[EvalExample, ...]
    """The questions evaluated (after `limit`)."""
    problems: tuple[QuestionProblem, ...]
    """Question lines skipped when loading."""
    computed: int
    """Pairs run by this call (including failed ones)."""
    skipped: int
    """Pairs already done before this call started."""
    errors: int
    """Pairs whose system raised in this call; written with `error`, redone on resume."""
    discarded: dict[str, int]
    """Done pairs run again because their key differs, by what differed (e.g. 'code')."""


def run(
    system_names: Sequence[str],
    dataset_dir: Path,
    index_dir: Path,
    out_dir: Path,
    *,
    workers: int = 1,
    limit: int | None = None,
    backend: Backend = "offline",
    answer: bool = False,
    chroma_url: str | None = None,
    progress: bool = True,
    single_doc: bool = False,
) -> RunSummary:
    """Evaluate systems on a bundle's questions and append their results to `OUT/results.jsonl`.

    Args:
        system_names: Names from `evals.systems.SYSTEMS`, in the order they should be reported.
        dataset_dir: A bundle folder holding `questions.jsonl`.
        index_dir: The index built from that bundle.
        out_dir: Where results.jsonl and run_config.json go (created if missing).
        workers: Questions run concurrently.
        limit: Evaluate only the first `limit` questions.
        backend: Reasoning backend of the graph systems.
        answer: Ask systems for an answer too (EM/F1).
        chroma_url: Chroma server of the index, if not embedded.
        progress: Show a progress bar on stderr.
        single_doc: Restrict every search to the question's own documents (question_docs).

    Raises:
        ConfigError: On an unknown system, bad workers/limit, or an out_dir of another run.
        DatasetFormatError: If no question can be evaluated.
    """
    names = _checked(system_names, workers, limit)
    config = RunConfig(str(index_dir), chroma_url, backend, single_doc=single_doc)
    systems = {name: make_system(name, config) for name in names}
    examples, problems = _load(dataset_dir, config, limit)
    keys = _keys(systems, config, answer)
    write_run_config(out_dir, names, dataset_dir, config, answer, keys)
    log = ResultsLog(out_dir / RESULTS_FILE)
    pairs = [(ex, name) for ex in examples for name in names]
    pending, discarded = _pending(pairs, log.done(), keys)
    skipped = len(pairs) - len(pending)
    logger.info("%d pairs to run, %d already done in %s", len(pending), skipped, out_dir)
    traces = ResultsLog(out_dir / TRACES_FILE)
    job = _Job(systems, keys, log, traces, answer, shared_index(config, systems.values()))
    errors = _execute(pending, job, workers, progress)
    counts = (len(pending), skipped, errors, dict(discarded))
    config_path = out_dir / RUN_CONFIG_FILE
    return RunSummary(out_dir, log.path, config_path, names, examples, problems, *counts)


def _keys(systems: dict[str, System], config: RunConfig, answer: bool) -> dict[str, RunKey]:
    """Return each system's run key: this code, the index's build, the system's settings."""
    index_hash = manifest_hash(config.index_dir)
    return {
        name: run_key(name, settings(system, config, answer), index_hash)
        for name, system in systems.items()
    }


def settings(system: System, config: RunConfig, answer: bool) -> dict[str, Any]:
    """Return what decides a system's results: the run config, answer, and its Context if any.

    A system with a pydantic `context` (the graph systems, dense) contributes every field of
    it, so a changed model, budget or ablation switch changes the key.
    """
    values: dict[str, Any] = {**asdict(config), "answer": answer}
    context = getattr(system, "context", None)
    if context is not None and hasattr(context, "model_dump"):
        values.update(context.model_dump(mode="json"))
    return values


def _pending(
    pairs: list[tuple[EvalExample, str]], done: dict[Key, Any], keys: dict[str, RunKey]
) -> tuple[list[tuple[EvalExample, str]], Counter[str]]:
    """Return the pairs with no complete line under the current key, and why done ones redo."""
    pending: list[tuple[EvalExample, str]] = []
    discarded: Counter[str] = Counter()
    for example, name in pairs:
        pair = (example.qid, name)
        if pair in done and done[pair] == keys[name].as_dict():
            continue
        pending.append((example, name))
        if pair in done:
            discarded["+".join(keys[name].differences(done[pair]))] += 1
    if discarded:
        logger.warning(
            "%d done pair(s) computed under another key are run again (by what differed: %s)",
            sum(discarded.values()),
            dict(discarded),
        )
    return pending, discarded


def _checked(system_names: Sequence[str], workers: int, limit: int | None) -> tuple[str, ...]:
    """Return the systems once each, in order; raise ConfigError on bad arguments."""
    names = tuple(dict.fromkeys(system_names))
    if not names or workers < 1 or (limit is not None and limit < 1):
        raise ConfigError(
            f"need at least one system (got {list(names)}, e.g. --system dense), "
            f"workers >= 1 (got {workers}) and limit >= 1 (got {limit})"
        )
    return names


def _load(
    dataset_dir: Path, config: RunConfig, limit: int | None
) -> tuple[tuple[EvalExample, ...], tuple[QuestionProblem, ...]]:
    """Load the questions whose gold ids exist in the index; warn about every skipped line."""
    from tools.corpus_index import open_index

    index = open_index(config.index_dir, config.chroma_url)
    known = frozenset(index.graph.nodes_at(1))
    path = dataset_dir / QUESTIONS_FILE
    loaded = load_questions(path, known_component_ids=known)
    if loaded.problems:
        logger.warning(
            "%s: %d question line(s) skipped, %d usable (each problem is logged above)",
            path,
            len(loaded.problems),
            len(loaded.examples),
        )
    if not loaded.examples:
        raise DatasetFormatError(
            f"{path}: no usable question ({len(loaded.problems)} skipped); check that the "
            f"index {config.index_dir} was built from this bundle"
        )
    examples = loaded.examples[:limit] if limit else loaded.examples
    return examples, loaded.problems


@dataclass(frozen=True)
class _Job:
    """What every pair of one run shares: systems, their keys, the output files, options."""

    systems: dict[str, System]
    keys: dict[str, RunKey]
    log: ResultsLog
    traces: ResultsLog
    answer: bool
    index: SharedIndex


def _execute(
    pending: list[tuple[EvalExample, str]], job: _Job, workers: int, progress: bool
) -> int:
    """Run the pending pairs on a thread pool, appending each result as it finishes."""
    errors = 0
    if pending:
        job.index.start_helper()
    bar = tqdm(total=len(pending), disable=not progress, unit="q", desc="eval", leave=False)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="eval")
    try:
        futures = [pool.submit(_one, job, ex, name) for ex, name in pending]
        for future in as_completed(futures):
            errors += 0 if future.result() else 1
            bar.update(1)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        bar.close()
    return errors


def _one(job: _Job, example: EvalExample, name: str) -> bool:
    """Run one pair and append its line (trace first); return False if the system raised."""
    key = job.keys[name].as_dict()
    record: dict[str, Any] = {"qid": example.qid, "system": name, KEY_FIELD: key}
    job.index.forget_queries()
    try:
        output = job.systems[name].retrieve(example, job.answer)
    except _FATAL:
        raise
    except Exception as err:  # one failing question must not end the run; it is recorded
        logger.warning(
            "%s failed on %s (recorded, redone on resume): %s: %s",
            name,
            example.qid,
            type(err).__name__,
            err,
            exc_info=logger.isEnabledFor(logging.DEBUG),
        )
        record.update(ranking=[], latency_ms=0.0, cost={}, error=f"{type(err).__name__}: {err}")
        job.log.append(record)
        return False
    if output.trace:  # before the result: a kill in between redoes the pair, trace and all
        trace = {"qid": example.qid, "system": name, KEY_FIELD: key}
        job.traces.append({**trace, "trace": compact_trace(output.trace)}, replace=True)
    record.update(
        ranking=list(output.ranking),
        pages=job.index.pages(output.ranking),
        regions=job.index.regions(output.ranking),
        latency_ms=round(output.latency_ms, 3),
        cost=output.cost,
    )
    if job.answer:
        record["answer"] = output.answer
    job.log.append(record)
    return True
