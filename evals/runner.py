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
from functools import partial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.datasets.questions import EvalExample, QuestionProblem, load_questions
from evals.pairs import PairRunner, write_result
from evals.results_log import RESULTS_FILE, Key, ResultsLog
from evals.run_config import RUN_CONFIG_FILE, write_run_config
from evals.run_key import RunKey, manifest_hash, run_key
from evals.shared_index import shared_index
from evals.systems import RunConfig, System, make_system
from state.settings import Backend
from tools.errors import ConfigError, DatasetFormatError
from tools.ray_cluster import RayTarget

logger = logging.getLogger(__name__)

QUESTIONS_FILE = "questions.jsonl"
TRACES_FILE = "traces.jsonl"
"""Sidecar of results.jsonl: the step trace of each graph system's run, one line per pair."""


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
    ray: RayTarget | None = None,
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
        ray: Run the pairs on this Ray cluster's workers instead (evals.ray_eval).

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
    pending, discarded = _pending(pairs, log, keys)
    runner = PairRunner(systems, keys, answer, shared_index(config, systems.values()))
    job = _Job(runner, log, ResultsLog(out_dir / TRACES_FILE), config, ray)
    errors = _run_pending(pending, job, workers, progress)
    counts = (len(pending), len(pairs) - len(pending), errors, dict(discarded))
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
    pairs: list[tuple[EvalExample, str]], log: ResultsLog, keys: dict[str, RunKey]
) -> tuple[list[tuple[EvalExample, str]], Counter[str]]:
    """Return the pairs with no complete line under the current key, and why done ones redo."""
    done: dict[Key, Any] = log.done()
    pending: list[tuple[EvalExample, str]] = []
    discarded: Counter[str] = Counter()
    for example, name in pairs:
        pair = (example.qid, name)
        if pair in done and done[pair] == keys[name].as_dict():
            continue
        pending.append((example, name))
        if pair in done:
            discarded["+".join(keys[name].differences(done[pair]))] += 1
    logger.info(
        "%d pairs to run, %d already done in %s", len(pending), len(pairs) - len(pending), log.path
    )
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
    """What every pair of one run shares: how to run it, where to write it, where it runs."""

    pairs: PairRunner
    log: ResultsLog
    traces: ResultsLog
    config: RunConfig
    ray: RayTarget | None
    """The Ray cluster whose workers run the pairs; None: threads of this process."""


def _run_pending(
    pending: list[tuple[EvalExample, str]], job: _Job, workers: int, progress: bool
) -> int:
    """Run the pending pairs on `workers` threads here, or on the job's Ray workers."""
    if job.ray is None:
        return _execute(pending, job, workers, progress)
    from evals.ray_eval import RayEval, ray_execute

    pairs = job.pairs
    spread = RayEval(tuple(pairs.systems), job.config, pairs.answer, pairs.keys, workers, job.ray)
    return ray_execute(
        pending, spread, partial(write_result, log=job.log, traces=job.traces), progress
    )


def _execute(
    pending: list[tuple[EvalExample, str]], job: _Job, workers: int, progress: bool
) -> int:
    """Run the pending pairs on a thread pool, appending each result as it finishes."""
    errors = 0
    if pending:
        job.pairs.index.start_helper()
    bar = tqdm(total=len(pending), disable=not progress, unit="q", desc="eval", leave=False)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="eval")
    try:
        futures = [pool.submit(job.pairs.run, ex, name) for ex, name in pending]
        for future in as_completed(futures):
            errors += 0 if write_result(future.result(), job.log, job.traces) else 1
            bar.update(1)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        bar.close()
    return errors
