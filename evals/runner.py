"""Run systems over a bundle's questions, one durable result line per (question, system).

The run is resumable: `OUT/results.jsonl` is append-only (see `evals.results_log`), pairs
already done are skipped, and a run killed at any point loses at most the pairs in flight.
Several runners may share one out dir. Questions run on a thread pool: the systems share one
`CorpusIndex` per index (its query cache is locked; Chroma and numpy release the GIL and
tolerate concurrent reads), and each FiF run compiles its own graph with no checkpointer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.datasets.questions import EvalExample, QuestionProblem, load_questions
from evals.results_log import RESULTS_FILE, ResultsLog
from evals.run_config import RUN_CONFIG_FILE, write_run_config
from evals.systems import RunConfig, System, make_system
from state.context import Backend
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

    Raises:
        ConfigError: On an unknown system, bad workers/limit, or an out_dir of another run.
        DatasetFormatError: If no question can be evaluated.
    """
    names = _checked(system_names, workers, limit)
    config = RunConfig(str(index_dir), chroma_url, backend)
    systems = {name: make_system(name, config) for name in names}
    examples, problems = _load(dataset_dir, config, limit)
    write_run_config(out_dir, names, dataset_dir, config, answer)
    log = ResultsLog(out_dir / RESULTS_FILE)
    done = log.done()
    pending = [(ex, name) for ex in examples for name in names if (ex.qid, name) not in done]
    skipped = len(examples) * len(names) - len(pending)
    logger.info("%d pairs to run, %d already done in %s", len(pending), skipped, out_dir)
    errors = _execute(pending, systems, log, answer, workers, progress, _forget_queries(config))
    counts = (len(pending), skipped, errors)
    config_path = out_dir / RUN_CONFIG_FILE
    return RunSummary(out_dir, log.path, config_path, names, examples, problems, *counts)


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


def _forget_queries(config: RunConfig) -> Callable[[], None]:
    """Return what empties the shared index's query cache: no system reuses another's work."""
    from tools.corpus_index import open_index

    return open_index(config.index_dir, config.chroma_url).forget_queries


def _execute(
    pending: list[tuple[EvalExample, str]],
    systems: dict[str, System],
    log: ResultsLog,
    answer: bool,
    workers: int,
    progress: bool,
    fresh: Callable[[], None],
) -> int:
    """Run the pending pairs on a thread pool, appending each result as it finishes.

    `fresh` runs before each pair (it empties the query-embedding cache), so every pair's
    latency includes its own embeddings.
    """
    errors = 0
    bar = tqdm(total=len(pending), disable=not progress, unit="q", desc="eval", leave=False)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="eval")
    try:
        futures = [
            pool.submit(_one, ex, name, systems[name], log, answer, fresh) for ex, name in pending
        ]
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


def _one(
    example: EvalExample,
    name: str,
    system: System,
    log: ResultsLog,
    answer: bool,
    fresh: Callable[[], None],
) -> bool:
    """Run one pair and append its line; return False if the system raised."""
    record: dict[str, Any] = {"qid": example.qid, "system": name}
    fresh()
    try:
        output = system.retrieve(example, answer)
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
        log.append(record)
        return False
    record.update(
        ranking=list(output.ranking), latency_ms=round(output.latency_ms, 3), cost=output.cost
    )
    if answer:
        record["answer"] = output.answer
    log.append(record)
    return True
