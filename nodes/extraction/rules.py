"""The loop's rules as pure functions of its state: the current item, counts, when to stop.

Counts are derived from the append-only records, never kept in counters: an iteration is
one extraction, the current shopping item is the question until the synthesizer names
what it still needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from state.core import llm_calls, tokens
from state.extraction_state import ExtractionContext, ExtractionState, Verdict


def extractions(state: ExtractionState) -> int:
    """Return how many extractions ran (= the current iteration once one has run)."""
    return sum(1 for step in state.get("trace", []) if step["node"] == "extractor")


def last_verdict(state: ExtractionState) -> Verdict | None:
    """Return the synthesizer's latest verdict, None before the first."""
    verdicts = state.get("verdicts", [])
    return verdicts[-1] if verdicts else None


def current_item(state: ExtractionState) -> str:
    """Return the shopping item to extract next: the question first, then what is needed."""
    verdict = last_verdict(state)
    if verdict is None or verdict["status"] != "needs" or not verdict["needs"]:
        return state["question"]
    return verdict["needs"]


def tried_items(state: ExtractionState) -> set[str]:
    """Return the shopping items extracted so far (lowercased, spaces collapsed).

    Read between an extraction and its synthesis: every verdict's needs has been fetched.
    """
    items = [state["question"]]
    items += [v["needs"] for v in state.get("verdicts", []) if v["needs"]]
    return {" ".join(item.lower().split()) for item in items}


def llm_budget_left(state: Mapping[str, Any], context: ExtractionContext, spent: int = 0) -> bool:
    """Tell whether another LLM call fits the run's call and token budgets.

    `spent` is what the calling node already used (not yet in the state's tally).
    """
    used = tokens(state) + spent
    return (
        llm_calls(state) < context.max_llm_calls
        and used < context.max_tokens
        and used < context.token_budget
    )


def stop_after_synthesis(state: ExtractionState, context: ExtractionContext) -> str | None:
    """Return why the loop ends after the latest verdict, or None to extract again."""
    verdict = last_verdict(state)
    if verdict is None:
        raise ValueError("no verdict yet: the synthesizer has not run")
    if verdict["status"] == "answer":
        return f"answered at iteration {verdict['iteration']}"
    if verdict["status"] == "fail":
        return f"failed at iteration {verdict['iteration']}: {verdict['reason']}"
    if extractions(state) >= context.max_iterations:
        return f"reached max_iterations={context.max_iterations} still needing {verdict['needs']!r}"
    return None
