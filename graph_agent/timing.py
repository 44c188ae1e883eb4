"""Per-node working time: one wrapper adds each node's wall time to the run's cost tally.

The time budget (`nodes.fif.rules.budget_exhausted`) counts this working time rather than the
clock since the run began, so a run resumed or forked from a checkpoint hours later has the
budget it had left when it paused. The graph wraps every node once; nodes stay unaware.
The wrapper also opens the node's LLM time window (`nodes.core.decision.time_budget`): the
budget left when the node starts bounds every model call it makes, so a slow server
cannot hold the run past its budget plus one call's timeout. Every graph uses it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from langgraph.runtime import Runtime

from nodes.core.decision import seconds_left, time_budget
from state.core import add_costs
from state.settings import RunSettings

WORK_KEY = "work_ms"
"""The cost key of working time (a `tools.cost.CostMeter` field)."""

Node = Callable[[Any, Runtime[Any]], Mapping[str, Any]]
"""A node of any graph: its state holds a `cost` tally and its context is a `RunSettings`."""


class TimedNode(Protocol):
    """A node as LangGraph calls it: `runtime` is passed by name."""

    def __call__(self, state: Any, runtime: Runtime[Any]) -> dict[str, Any]:
        """Run the node and return its update."""
        ...


def timed_node(node: Node) -> TimedNode:
    """Return the node with its own wall time added to the `cost` of its update.

    The wrapper keeps the node's name, docstring and signature (LangGraph reads the
    signature to pass `runtime`), and returns the node's update otherwise unchanged.
    """

    @functools.wraps(node)
    def run(state: Any, runtime: Runtime[Any]) -> dict[str, Any]:
        started = time.perf_counter()
        context: RunSettings = runtime.context or RunSettings()
        with time_budget(seconds_left(state, context)):
            update = dict(node(state, runtime))
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        work = {WORK_KEY: round(elapsed_ms, 3)}
        update["cost"] = add_costs(update.get("cost"), work)
        return with_step_work(update, work)

    return run


def with_step_work(update: dict[str, Any], work: dict[str, float]) -> dict[str, Any]:
    """Add a node's working time to the step records its update carries.

    The traverser's pending step and the evaluator's judged record (which sums the pending
    step's cost) then say how long the step took, not only the run's total; the nodes'
    meters time LLM, vector and embedding calls but never the node itself.
    """
    pending = update.get("pending_step")
    if isinstance(pending, dict):
        update["pending_step"] = {**pending, "cost": add_costs(pending.get("cost"), work)}
    records = update.get("history")
    if isinstance(records, list) and records:
        *earlier, last = records
        update["history"] = [*earlier, {**last, "cost": add_costs(last.get("cost"), work)}]
    return update
