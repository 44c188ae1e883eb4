"""One protocol for every LLM decision with an offline twin, in every system.

An LLM decision is a prompt with its output schema (`ask` renders a template of the
system's prompts module and calls `StructuredCaller.call` with the schema), the predicates
any decision must pass (`checks`, the same ones the offline decision satisfies, from
`nodes.core.guards` or the system's rules), and the offline twin. `run_decision` asks the model
only when the context has one and the run has LLM calls, tokens and time left; the reply
is parsed and repaired by the caller, then checked; on any failure (timeout, invalid reply,
a failed predicate, the time budget spent) the offline twin decides and the reason is
recorded (`decided_by="offline-fallback"`), as are the caller's retries.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, TypedDict, TypeVar

from state.core import DecisionRecord, llm_calls, tokens
from state.settings import RunSettings
from tools.cost import CostMeter
from tools.llm_calls import LLMFailure, LLMUnreachable, NotRouted, StructuredCaller, caller_for

logger = logging.getLogger(__name__)

R = TypeVar("R")
Check = Callable[[R], "str | None"]
"""A predicate over a decision: the reason it is unacceptable, or None when it passes."""


@dataclass(frozen=True)
class LLMDecision(Generic[R]):
    """A decision the model may propose and its offline twin makes otherwise."""

    ask: Callable[[StructuredCaller], R] | None
    """Prompt the model and return its (schema-validated) proposal; None = offline only."""
    offline: Callable[[], R]
    """The offline twin."""
    checks: Sequence[Check[R]] = ()
    """Predicates a proposal must pass; the first failing one sends it to the offline twin."""


@dataclass(frozen=True)
class Decided(Generic[R]):
    """A decision with who made it ("llm", "offline", "offline-fallback", "caller") and why."""

    value: R
    decided_by: str
    note: str = ""
    retries: tuple[str, ...] = ()
    """The model calls asked again (timeouts, rate limits, unusable replies)."""


def llm_budget_left(state: Mapping[str, Any], context: RunSettings) -> bool:
    """Tell whether another LLM call fits the run's call and token budgets.

    Any graph's state works: only its `cost` tally is read.
    """
    return llm_calls(state) < context.max_llm_calls and tokens(state) < context.max_tokens


def seconds_left(state: Mapping[str, Any], context: RunSettings) -> float:
    """Return the run's time budget left: `max_seconds` minus its working time so far.

    Graphs that add `work_ms` to their cost (graph_agent.timing) count their own time;
    any state without it counts from zero.
    """
    worked = float(state.get("cost", {}).get("work_ms", 0.0)) / 1000.0
    return context.max_seconds - worked


_DEADLINE: ContextVar[float | None] = ContextVar("llm_deadline", default=None)
"""When the running node's share of the time budget ends (time.monotonic seconds)."""


@contextmanager
def time_budget(seconds: float) -> Iterator[None]:
    """Bound every decision made inside the block by `seconds` from now (graph_agent.timing)."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _time_left(given: float | None) -> float | None:
    """Return the tighter of a caller's time left and the running node's window."""
    deadline = _DEADLINE.get()
    window = None if deadline is None else deadline - time.monotonic()
    if given is None or window is None:
        return given if window is None else window
    return min(given, window)


def run_decision(
    decision: LLMDecision[R],
    context: RunSettings,
    meter: CostMeter,
    room: bool,
    time_left: float | None = None,
) -> Decided[R]:
    """Decide by the model when allowed and its proposal passes the checks, else offline.

    Args:
        decision: The prompt/schema call, the checks and the offline twin.
        context: The run settings (backend, model, retries, timeouts).
        meter: The node's cost meter; fallbacks, retries and rate limits are counted here.
        room: Whether the run's LLM call and token budgets allow another call.
        time_left: Seconds of the run's time budget left (None: only the running node's
            window from `time_budget` bounds it, if any).
    """
    time_left = _time_left(time_left)
    if decision.ask is None or context.backend == "offline":
        return Decided(decision.offline(), "offline")
    if not room:
        return Decided(decision.offline(), "offline-fallback", "LLM budget used up")
    if time_left is not None and time_left <= 0:
        return Decided(decision.offline(), "offline-fallback", "time budget used up")
    deadline = None if time_left is None else time.monotonic() + time_left
    caller = caller_for(context, deadline=deadline)
    try:
        proposal = decision.ask(caller)
        problem = next((p for p in (c(proposal) for c in decision.checks) if p), None)
        if problem is None:
            return Decided(proposal, "llm", retries=tuple(caller.retry_notes))
        note = f"LLM proposal rejected: {problem}"
    except NotRouted as routed:  # this backend leaves the decision to the offline twin
        return Decided(decision.offline(), "offline", str(routed))
    except LLMUnreachable as failure:  # the caller warned once; the run reports it once
        logger.debug("falling back to the offline decision: %s", failure)
        meter.fallbacks += 1
        meter.llm_unreachable += 1
        return Decided(decision.offline(), "offline-fallback", str(failure))
    except LLMFailure as failure:
        note = str(failure)
    logger.warning("falling back to the offline decision: %s", note)
    meter.fallbacks += 1
    return Decided(decision.offline(), "offline-fallback", note, tuple(caller.retry_notes))


def decide(
    state: Mapping[str, Any],
    context: RunSettings,
    meter: CostMeter,
    llm_path: Callable[[StructuredCaller], R] | None,
    offline_path: Callable[[], R],
    checks: Sequence[Check[R]] = (),
) -> Decided[R]:
    """Run an LLM decision within the budgets of `state` (any graph's state with a `cost`)."""
    return run_decision(
        LLMDecision(llm_path, offline_path, checks),
        context,
        meter,
        llm_budget_left(state, context),
        seconds_left(state, context),
    )


def decide_within(
    budget_left: bool,
    context: RunSettings,
    meter: CostMeter,
    llm_path: Callable[[StructuredCaller], R] | None,
    offline_path: Callable[[], R],
    checks: Sequence[Check[R]] = (),
    time_left: float | None = None,
) -> Decided[R]:
    """Run an LLM decision when the caller checked its graph's own call/token budget."""
    return run_decision(
        LLMDecision(llm_path, offline_path, checks), context, meter, budget_left, time_left
    )


class Fallbacks(TypedDict, total=False):
    """The state key every node may add: decisions taken by an offline twin, and retries."""

    fallbacks: list[str]


class CostUpdate(TypedDict, total=False):
    """The update key every node may write: its cost delta (the graph adds its `work_ms`)."""

    cost: dict[str, float]


class DecisionUpdate(CostUpdate, Fallbacks, total=False):
    """The update keys of a node that decides: its cost delta and the fallbacks it took."""


def fallback_notes(node: str, *decisions: Decided[Any]) -> list[str]:
    """Return the trace lines of decisions that fell back or whose calls were retried."""
    notes = []
    for decided in decisions:
        if decided.decided_by == "offline-fallback":
            notes.append(f"{node}: offline fallback ({decided.note})")
        if decided.retries:
            notes.append(f"{node}: LLM retried {len(decided.retries)}x ({decided.retries[-1]})")
    return notes


def fallbacks_of(node: str, *decisions: Decided[Any]) -> Fallbacks:
    """Return the update recording decisions that fell back to their offline twin or retried.

    It is empty when nothing did, so a node's update keeps only what changed.
    """
    notes = fallback_notes(node, *decisions)
    return {"fallbacks": notes} if notes else {}


def decision_record(
    node: str, decided_by: str, reason: str, version: str | None, /, **detail: Any
) -> DecisionRecord:
    """Return the trace record of a node's decision; `detail` may hold any key (even "node").

    The prompt version is kept only when a model was asked (`llm`, or `offline-fallback`
    after it failed); `reason` carries a fallback's note.
    """
    return {
        "node": node,
        "decided_by": decided_by,
        "reason": reason,
        "prompt_version": version if decided_by in ("llm", "offline-fallback") else None,
        "detail": detail,
    }
