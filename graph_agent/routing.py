"""Conditional edges of the FiF graph: small functions over the rules, typed with their targets."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from nodes.rules import must_stop
from state.context import Context
from state.fif_state import FiFState


def after_planner(
    state: FiFState, runtime: Runtime[Context]
) -> Literal["orchestrator", "reranker"]:
    """Go to the orchestrator unless a budget (or a finished plan) says stop."""
    return "reranker" if must_stop(state, runtime.context or Context()) else "orchestrator"


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
    state: FiFState, runtime: Runtime[Context]
) -> Literal["orchestrator", "reranker"]:
    """Stop on a used-up budget or a fully answered plan; otherwise decide again."""
    return "reranker" if must_stop(state, runtime.context or Context()) else "orchestrator"


def after_reranker(state: FiFState, runtime: Runtime[Context]) -> Literal["answerer", "__end__"]:
    """Answer when the context asks for an answer."""
    return "answerer" if (runtime.context or Context()).answer else "__end__"
