"""What a run of any system returns, and how a graph's final state becomes it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from state.core import Ranked


@dataclass(frozen=True)
class RunResult:
    """What one retrieval run returns, for any system of the toolkit."""

    ranking: list[Ranked]
    answer: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)
    thread_id: str = ""
    latency_ms: float = 0.0
    subqueries: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    finished: bool = False
    """True when a resumed run had already finished: nothing ran, this is its stored result."""


def result_from_state(
    final: Mapping[str, Any],
    thread_id: str,
    latency_ms: float,
    history_key: str = "history",
    subqueries: Iterable[Mapping[str, Any]] | None = None,
) -> RunResult:
    """Turn a graph's final state into a RunResult.

    The step records are the state's `history_key` list; `subqueries` are the sub-questions
    (or verdicts) the run worked through, by default the state's `subqueries`.
    """
    worked = final.get("subqueries", []) if subqueries is None else subqueries
    return RunResult(
        ranking=list(final.get("ranking", [])),
        answer=final.get("answer"),
        history=[dict(step) for step in final.get(history_key, [])],
        cost=dict(final.get("cost", {})),
        thread_id=thread_id,
        latency_ms=latency_ms,
        subqueries=[dict(item) for item in worked],
        fallbacks=list(final.get("fallbacks", [])),
    )
