"""One (question, system) pair of an evaluation: run it into a result line, then append it.

Running and writing are apart so that pairs may run elsewhere (threads of this process, or
Ray workers: evals.ray_eval) while one process writes `results.jsonl` and its traces.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from evals.datasets.questions import EvalExample
from evals.results_log import KEY_FIELD, ResultsLog
from evals.run_key import RunKey
from evals.shared_index import SharedIndex
from evals.systems import System
from evals.traces import compact_trace
from tools.errors import (
    ConfigError,
    IndexMismatchError,
    IndexNotFoundError,
    MissingDependencyError,
    ModelUnavailableError,
)

logger = logging.getLogger(__name__)

FATAL = (
    ConfigError,
    MissingDependencyError,
    ModelUnavailableError,
    IndexMismatchError,
    IndexNotFoundError,
)
"""Errors that would repeat on every question: they end the run instead of being recorded."""


@dataclass(frozen=True)
class PairResult:
    """One pair's result line, its trace line (graph systems) and whether the system ran."""

    record: dict[str, Any]
    trace: dict[str, Any] | None
    ok: bool


@dataclass(frozen=True)
class PairRunner:
    """What running a pair needs: the systems, their run keys, the shared index, `answer`."""

    systems: dict[str, System]
    keys: dict[str, RunKey]
    answer: bool
    index: SharedIndex

    def run(self, example: EvalExample, name: str) -> PairResult:
        """Run one pair; a system's error becomes an `error` line (redone on resume).

        Raises:
            FiFError: One of FATAL, which would fail every pair alike.
        """
        key = self.keys[name].as_dict()
        record: dict[str, Any] = {"qid": example.qid, "system": name, KEY_FIELD: key}
        self.index.forget_queries()
        try:
            output = self.systems[name].retrieve(example, self.answer)
        except FATAL:
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
            error = f"{type(err).__name__}: {err}"
            record.update(ranking=[], latency_ms=0.0, cost={}, error=error)
            return PairResult(record, None, False)
        trace: dict[str, Any] | None = None
        if output.trace:
            trace = {"qid": example.qid, "system": name, KEY_FIELD: key}
            trace["trace"] = compact_trace(output.trace)
        record.update(
            ranking=list(output.ranking),
            pages=self.index.pages(output.ranking),
            regions=self.index.regions(output.ranking),
            latency_ms=round(output.latency_ms, 3),
            cost=output.cost,
        )
        if self.answer:
            record["answer"] = output.answer
        return PairResult(record, trace, True)


def write_result(result: PairResult, log: ResultsLog, traces: ResultsLog) -> bool:
    """Append a pair's lines and return whether the system ran.

    The trace goes first: a kill in between redoes the pair, trace and all.
    """
    if result.trace is not None:
        traces.append(result.trace, replace=True)
    log.append(result.record)
    return result.ok
