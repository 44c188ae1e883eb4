"""Conditional edges of the FiF graph: small functions over the rules, typed with their targets."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from nodes.fif.rules import must_stop, should_replan
from state.fif_context import FiFContext
from state.fif_state import FiFState
from state.views import last_subquery_index


def after_planner(
    state: FiFState, runtime: Runtime[FiFContext]
) -> Literal["orchestrator", "reranker"]:
    """Go to the orchestrator unless a budget (or a finished plan) says stop."""
    return "reranker" if must_stop(state, runtime.context or FiFContext()) else "orchestrator"


def after_orchestrator(state: FiFState) -> Literal["traverser", "planner", "reranker"]:
    """Follow the orchestrator's decision."""
    action = state.get("next_action")
    if action is None:
        raise ValueError("orchestrator returned no action")
    if action["kind"] == "search":
        return "traverser"
    if action["kind"] == "replan":
        return "planner"
    if action["kind"] == "stop":
        return "reranker"
    raise ValueError(f"unknown action kind {action['kind']!r}")


def after_evaluator(
    state: FiFState, runtime: Runtime[FiFContext]
) -> Literal["reranker", "planner", "orchestrator"]:
    """Stop, replan, or decide again after a verdict.

    Stop on a used-up budget or an answered plan; replan when the subquery just worked
    on failed from several anchors (the orchestrator applies the same limits to an
    LLM-proposed replan); otherwise the orchestrator decides the next step.
    """
    context = runtime.context or FiFContext()
    if must_stop(state, context):
        return "reranker"
    worked_on = last_subquery_index(state)
    replan = worked_on is not None and should_replan(state, context, worked_on)
    return "planner" if replan else "orchestrator"


def after_reranker(state: FiFState, runtime: Runtime[FiFContext]) -> Literal["answerer", "__end__"]:
    """Answer when the context asks for an answer."""
    return "answerer" if (runtime.context or FiFContext()).answer else "__end__"
