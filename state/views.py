"""Pure views derived from the history, so no counter can drift from what really happened."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from state.fif_state import FiFState, StepRecord, Strategy, Subquery

RoutingPattern = tuple[str, str, str, str, str]
"""(intent, anchor, document mode, component mode, granularity) of a traversal."""

_WORD = re.compile(r"\w+")


def intent_of(subquery: str) -> str:
    """Normalise a subquery to its intent: lowercased distinct words in sorted order."""
    return " ".join(sorted(set(_WORD.findall(subquery.lower()))))


def routing_pattern(
    subquery: str,
    anchor: int | None,
    strategy: Strategy,
    history: Sequence[StepRecord] = (),
) -> RoutingPattern:
    """Return the routing pattern of a traversal (the anchor only matters to a neighbors hop).

    With the history at hand, a neighbors hop's anchor is named by the evidence it follows
    (`anchor_evidence`), so following the links of the same top find again is one route.
    """
    if strategy["doc_mode"] != "neighbors":
        anchor = None
    return (
        intent_of(subquery),
        anchor_evidence(history, anchor),
        strategy["doc_mode"],
        strategy["comp_mode"],
        strategy["granularity"],
    )


def anchor_evidence(history: Sequence[StepRecord], anchor: int | None) -> str:
    """Name an anchor step by its top component ("" for no anchor, the step number if unknown).

    A links hop reads its anchor's best find first; when a later success of the same
    subquery tops with the same component, its links lead where the earlier hop went.
    """
    if anchor is None:
        return ""
    if 0 <= anchor < len(history) and history[anchor]["components"]:
        return history[anchor]["components"][0]["id"]
    return str(anchor)


def failed_patterns(history: Sequence[StepRecord]) -> set[RoutingPattern]:
    """Return the routing patterns of every failed traversal."""
    return {
        routing_pattern(h["subquery"], h["anchor"], h["strategy"], history)
        for h in history
        if not h["success"]
    }


def tried_patterns(history: Sequence[StepRecord]) -> set[RoutingPattern]:
    """Return the routing patterns of every traversal so far, whatever its outcome."""
    return {routing_pattern(h["subquery"], h["anchor"], h["strategy"], history) for h in history}


def steps_for(history: Sequence[StepRecord], subquery_index: int) -> list[StepRecord]:
    """Return the traversals made for one subquery, oldest first."""
    return [h for h in history if h["subquery_index"] == subquery_index]


def consecutive_failures(history: Sequence[StepRecord], subquery_index: int) -> int:
    """Count the failures at the end of a subquery's traversals."""
    count = 0
    for record in reversed(steps_for(history, subquery_index)):
        if record["success"]:
            break
        count += 1
    return count


def failed_anchors(history: Sequence[StepRecord], subquery_index: int) -> set[int | None]:
    """Return the distinct anchors from which a subquery's traversals failed."""
    return {h["anchor"] for h in steps_for(history, subquery_index) if not h["success"]}


def successes(history: Sequence[StepRecord]) -> list[StepRecord]:
    """Return the successful traversals, oldest first."""
    return [h for h in history if h["success"]]


def best_success(history: Sequence[StepRecord], exclude: set[int | None]) -> StepRecord | None:
    """Return the success with the best top component score, skipping excluded anchors."""
    pool = [h for h in successes(history) if h["step"] not in exclude and h["components"]]
    return max(pool, key=lambda h: h["components"][0]["score"], default=None)


def unresolved(subqueries: Sequence[Subquery]) -> list[Subquery]:
    """Return the subqueries not yet answerable and not replaced by a rewrite, in plan order."""
    superseded = {s["parent"] for s in subqueries if "parent" in s and s["origin"] == "rewrite"}
    return [s for s in subqueries if s["status"] != "answerable" and s["index"] not in superseded]


def top_pages(history: Sequence[StepRecord]) -> set[str]:
    """Return the documents of the steps' top components: the pages the run walked through."""
    return {step["components"][0]["doc_id"] for step in history if step["components"]}


def subquery_finds(state: FiFState) -> list[str]:
    """Return the top find of each successful global hop on a subquery of its own.

    Of its own: any but the question itself (a bridge, one entity of a comparison, a
    rewrite). A subquery another's step answered on the way (`Subquery.found`: "Are
    Frozen and Escape from the Dark both animated?" finds Escape from the Dark's page
    first) counts with that step's top component. First-found order, each once.
    """
    question = state.get("question")
    finds = [
        step["components"][0]["id"]
        for step in state.get("history", [])
        if step["success"]
        and step["components"]
        and step["strategy"]["doc_mode"] != "neighbors"
        and step["subquery"] != question
    ]
    plan = state.get("subqueries", [])
    also = [s["found"] for s in plan if "found" in s and s["text"] != question]
    return list(dict.fromkeys([*finds, *also]))


def spent_bridge(subquery: Subquery, history: Sequence[StepRecord]) -> bool:
    """Return whether a bridge subquery had its one global hop (bridges do not escalate)."""
    return subquery["origin"] == "bridge" and bool(steps_for(history, subquery["index"]))


def pending_bridge(state: FiFState, max_bridges: int) -> tuple[StepRecord, str] | None:
    """Return the earliest step whose bridge subquery was not asked yet, with that subquery.

    A subquery spawns at most one bridge (from its first step that names one) and a
    question at most `max_bridges`; a bridge may spawn the next, so a chain of entities is
    walked one hop at a time.
    """
    subqueries, history = state.get("subqueries", []), state.get("history", [])
    bridges = [s for s in subqueries if s["origin"] == "bridge"]
    if len(bridges) >= max_bridges:
        return None
    spawned = {s.get("parent") for s in bridges}
    asked = {intent_of(s["text"]) for s in subqueries}
    for step in history:
        text = step.get("bridge")
        if text and step["subquery_index"] not in spawned and intent_of(text) not in asked:
            return step, text
    return None


def last_subquery_index(state: FiFState) -> int | None:
    """Return the subquery the latest traversal worked on (None before the first one)."""
    history = state.get("history", [])
    return history[-1]["subquery_index"] if history else None


def llm_calls(state: Mapping[str, Any]) -> int:
    """Return the LLM calls spent against the budget: answered calls plus failed attempts.

    Any graph's state works: only its `cost` tally is read.
    """
    cost = state.get("cost", {})
    return int(cost.get("llm_calls", 0) + cost.get("llm_failed_attempts", 0))


def tokens(state: Mapping[str, Any]) -> int:
    """Return the LLM tokens spent so far (any graph's state with a `cost` tally)."""
    cost = state.get("cost", {})
    return int(cost.get("input_tokens", 0) + cost.get("output_tokens", 0))


def working_seconds(state: FiFState) -> float:
    """Return the run's working time so far: the wall time spent inside its nodes.

    Time while a run is paused between checkpoints does not count, so a resumed or forked
    run keeps the time budget it had left.
    """
    return float(state.get("cost", {}).get("work_ms", 0.0)) / 1000.0


def replans(state: FiFState) -> int:
    """Return how many replans were decided so far."""
    return sum(1 for action in state.get("decisions", []) if action["kind"] == "replan")


def last_replan_step(state: FiFState) -> int:
    """Return the number of traversals that existed at the last replan (-1 if none)."""
    seen = -1
    count = 0
    for action in state.get("decisions", []):
        if action["kind"] == "search":
            count += 1
        elif action["kind"] == "replan":
            seen = count
    return seen
