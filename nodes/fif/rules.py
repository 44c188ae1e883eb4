"""FiF's routing rules as data and named predicates, shared by the edges and the orchestrator.

The cost ladder orders strategies from cheap to expensive (seed 000, Appendix D):
neighbors < vector < LLM for documents, vector < LLM for components, and
document < component < subcomponent for vector granularity. A new subquery starts at
the cheapest allowed rung; a failure moves it up one rung; a failed routing pattern
is never repeated; repeated failures re-anchor; failures from several anchors replan.
"""

from __future__ import annotations

from collections.abc import Sequence

from state.core import llm_calls, tokens
from state.fif_context import FiFContext
from state.fif_state import FiFState, StepRecord, Strategy
from state.views import (
    consecutive_failures,
    failed_anchors,
    failed_patterns,
    last_replan_step,
    pending_bridge,
    replans,
    routing_pattern,
    steps_for,
    tried_patterns,
    unresolved,
    working_seconds,
)

LADDER: tuple[Strategy, ...] = (
    {"doc_mode": "neighbors", "comp_mode": "vector", "granularity": "document"},
    {"doc_mode": "vector", "comp_mode": "vector", "granularity": "document"},
    {"doc_mode": "vector", "comp_mode": "vector", "granularity": "component"},
    {"doc_mode": "vector", "comp_mode": "vector", "granularity": "subcomponent"},
    {"doc_mode": "vector", "comp_mode": "llm", "granularity": "subcomponent"},
    {"doc_mode": "llm", "comp_mode": "llm", "granularity": "subcomponent"},
)
"""The escalation ladder, cheapest first."""

FIXED_GRANULARITY = "subcomponent"
"""The one granularity used when the granularity-adaptation ablation is on."""
MAX_REPLANS = 2


def rung_of(strategy: Strategy) -> int:
    """Return the ladder position of a strategy (the closest rung when it is not on it)."""
    for position, rung in enumerate(LADDER):
        if rung == strategy:
            return position
    same_modes = [
        i
        for i, r in enumerate(LADDER)
        if (r["doc_mode"], r["comp_mode"]) == (strategy["doc_mode"], strategy["comp_mode"])
    ]
    return same_modes[0] if same_modes else len(LADDER) - 1


def allowed(strategy: Strategy, context: FiFContext, has_anchor: bool, first_step: bool) -> bool:
    """Tell whether a rung may be used under the context's ablations and the anchor at hand."""
    if strategy["doc_mode"] == "neighbors" and not has_anchor:
        return False
    if context.no_llm_traversal and "llm" in (strategy["doc_mode"], strategy["comp_mode"]):
        return False
    if context.no_global_hop and not first_step and strategy["doc_mode"] != "neighbors":
        return False
    return True


def with_fixed_granularity(strategy: Strategy, context: FiFContext) -> Strategy:
    """Pin the granularity when the granularity-adaptation ablation is on."""
    if context.fixed_granularity:
        return {**strategy, "granularity": FIXED_GRANULARITY}  # type: ignore[typeddict-item]
    return strategy


def repeats_failure(
    history: Sequence[StepRecord], subquery: str, anchor: int | None, strategy: Strategy
) -> bool:
    """Tell whether this route (intent, anchor, modes, granularity) already failed."""
    return routing_pattern(subquery, anchor, strategy, history) in failed_patterns(history)


def next_rung(
    history: Sequence[StepRecord],
    subquery: str,
    anchor: int | None,
    context: FiFContext,
    start: int,
) -> Strategy | None:
    """Return the cheapest allowed strategy at or above `start` whose route was not yet taken.

    A failed route must not be repeated, and repeating a successful one would only
    return the same components, so any route already taken is skipped.
    """
    first_step = not history
    tried = tried_patterns(history)
    for rung in LADDER[start:]:
        strategy = with_fixed_granularity(rung, context)
        if not allowed(strategy, context, anchor is not None, first_step):
            continue
        if routing_pattern(subquery, anchor, strategy, history) not in tried:
            return strategy
    return None


def budget_exhausted(state: FiFState, context: FiFContext) -> str | None:
    """Return which budget is used up (steps, LLM calls, tokens, seconds), or None."""
    if len(state.get("history", [])) >= context.max_steps:
        return f"step budget ({context.max_steps}) used"
    if context.backend != "offline" and llm_calls(state) >= context.max_llm_calls:
        return f"LLM call budget ({context.max_llm_calls}) used"
    if context.backend != "offline" and tokens(state) >= context.max_tokens:
        return f"token budget ({context.max_tokens}) used"
    if working_seconds(state) >= context.max_seconds:  # not the clock: resumes keep their budget
        return f"time budget ({context.max_seconds:.0f}s) used"
    return None


def must_stop(state: FiFState, context: FiFContext) -> bool:
    """Stop when a budget is used up, or every subquery is answerable and no bridge is pending."""
    if budget_exhausted(state, context):
        return True
    subqueries = state.get("subqueries", [])
    if not subqueries or unresolved(subqueries):
        return False
    return pending_bridge(state, context.tuning.bridge_hops) is None


def should_backtrack(state: FiFState, context: FiFContext, subquery_index: int) -> bool:
    """Backtrack after ≥N consecutive failures, or after a failed LLM/LLM traversal."""
    if context.no_backtracking:
        return False
    history = state.get("history", [])
    steps = steps_for(history, subquery_index)
    if not steps or steps[-1]["success"]:
        return False
    last = steps[-1]["strategy"]
    if last["doc_mode"] == "llm" and last["comp_mode"] == "llm":
        return True
    return consecutive_failures(history, subquery_index) >= context.backtrack_after_failures


def replan_refusal(state: FiFState, context: FiFContext) -> str | None:
    """Return why no replan may happen now (no-planner ablation, replan limit), or None."""
    if context.no_planner:
        return "no planner"
    if replans(state) >= MAX_REPLANS:
        return f"replan limit ({MAX_REPLANS}) reached"
    return None


def should_replan(state: FiFState, context: FiFContext, subquery_index: int) -> bool:
    """Replan when a subquery failed from ≥N distinct anchors since the last replan."""
    if replan_refusal(state, context):
        return False
    history = state.get("history", [])
    recent = history[max(0, last_replan_step(state)) :]
    anchors = failed_anchors(recent, subquery_index)
    return len(anchors) >= context.replan_after_failed_anchors
