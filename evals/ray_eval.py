"""`fif eval --ray`: questions fanned out to Ray workers that open the same index.

Each worker builds the run's systems from the same `RunConfig` (the index folder, or the
Chroma server of `--chroma-url`) and runs the pairs it is handed; results come back to the
process that started the run, the one writer of `results.jsonl` and its traces, under the
run keys that process computed. A worker embeds queries in its own process (no helper
process: it holds one CPU), which gives the same vectors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.datasets.questions import EvalExample
from evals.pairs import PairResult, PairRunner
from evals.run_key import RunKey
from evals.shared_index import shared_index
from evals.systems import RunConfig, make_system
from tools.ray_cluster import RayTarget, cluster_cpus, import_ray, ray_session

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RayEval:
    """What the workers of one run need, and where they run."""

    names: tuple[str, ...]
    config: RunConfig
    answer: bool
    keys: dict[str, RunKey]
    workers: int
    """Workers to start, at most one per free CPU of the cluster; 1: one per free CPU."""
    target: RayTarget


class EvalWorker:
    """A Ray actor holding the run's systems over its own handle on the index."""

    def __init__(
        self, names: Sequence[str], config: RunConfig, answer: bool, keys: dict[str, RunKey]
    ) -> None:
        systems = {name: make_system(name, config) for name in names}
        self.runner = PairRunner(systems, keys, answer, shared_index(config, systems.values()))

    def run(self, example: EvalExample, name: str) -> PairResult:
        """Run one pair (a system's error comes back as an error line)."""
        return self.runner.run(example, name)


def ray_execute(
    pending: list[tuple[EvalExample, str]],
    spread: RayEval,
    write: Callable[[PairResult], bool],
    progress: bool,
) -> int:
    """Run the pending pairs on Ray workers, writing each result here as it comes back.

    Returns:
        The pairs whose system raised (written as error lines).

    Raises:
        FiFError: A worker's fatal error (evals.pairs.FATAL), which ends the run.
    """
    if not pending:
        return 0
    errors = 0
    with ray_session(spread.target):
        from ray.util import ActorPool

        pool = ActorPool(_start_workers(spread, len(pending)))
        bar = tqdm(total=len(pending), disable=not progress, unit="q", desc="eval", leave=False)

        def call(worker: Any, pair: tuple[EvalExample, str]) -> Any:
            return worker.run.remote(*pair)

        try:
            for result in pool.map_unordered(call, pending):
                errors += 0 if write(result) else 1
                bar.update(1)
        finally:
            bar.close()
    return errors


def _start_workers(spread: RayEval, pairs: int) -> list[Any]:
    """Start the workers, never more than pairs or free CPUs; each opens the index itself."""
    ray = import_ray()
    free = cluster_cpus()
    count = min(pairs, free, spread.workers if spread.workers > 1 else free)
    config = replace(spread.config, index_dir=str(Path(spread.config.index_dir).resolve()))
    actor = ray.remote(num_cpus=1)(EvalWorker)
    logger.info("evaluating on %d Ray workers", count)
    return [actor.remote(spread.names, config, spread.answer, spread.keys) for _ in range(count)]
