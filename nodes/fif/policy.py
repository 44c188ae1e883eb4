"""The rule orchestrator (the LLM orchestrator's offline twin) and the rule check of any action.

For the current subquery: start cheap (neighbors of a success whose evidence links on,
else a global vector hop); follow links after a relevant but unfinished hop, and end its
ladder once those links are spent (a finer search re-finds the same evidence); escalate one
rung after a failure; after repeated failures re-anchor to the best earlier success and
rewrite the subquery; replan after failures from several anchors; stop when every
subquery is answerable, the ladders are exhausted, or a budget is used.
"""

from __future__ import annotations

from nodes.core.guards import ungrounded
from nodes.fif.bridge import bridge_page_found
from nodes.fif.rules import (
    budget_exhausted,
    next_rung,
    repeats_failure,
    replan_refusal,
    rung_of,
    should_backtrack,
    should_replan,
)
from state.fif_context import FiFContext
from state.fif_state import Action, FiFState, StepRecord, Strategy, Subquery, bridge_entry
from state.views import (
    best_success,
    failed_anchors,
    pending_bridge,
    spent_bridge,
    steps_for,
    unresolved,
)
from tools.layered_graph import LayeredGraph


def stop(reason: str, decided_by: str = "rules") -> Action:
    """Return a stop action."""
    return {"kind": "stop", "reason": reason, "decided_by": decided_by}


def replan_action(reason: str, decided_by: str = "rules") -> Action:
    """Return a replan action."""
    return {"kind": "replan", "reason": reason, "decided_by": decided_by}


def search(
    subquery: Subquery,
    strategy: Strategy,
    anchor: int | None,
    reason: str,
    decided_by: str = "rules",
) -> Action:
    """Return a search action for a subquery."""
    return {
        "kind": "search",
        "subquery": subquery["text"],
        "subquery_index": subquery["index"],
        "strategy": strategy,
        "anchor": anchor,
        "reason": reason,
        "decided_by": decided_by,
    }


def current_subqueries(state: FiFState) -> list[Subquery]:
    """Return the open subqueries, the one worked on last first.

    FiF keeps at a subquery until it is answered, its ladder runs out, or an LLM/LLM
    hop failed on it (then it advances to the next open one).
    """
    open_ = unresolved(state.get("subqueries", []))
    history = state.get("history", [])
    if not history:
        return open_
    last = history[-1]
    advance = (
        last["strategy"]["doc_mode"] == "llm"
        and last["strategy"]["comp_mode"] == "llm"
        and not last["success"]
    )
    current = [s for s in open_ if s["index"] == last["subquery_index"]]
    rest = [s for s in open_ if s["index"] != last["subquery_index"]]
    return rest + current if advance else current + rest


def rule_action(
    state: FiFState, context: FiFContext, graph: LayeredGraph
) -> tuple[Action, list[Subquery]]:
    """Decide the next action by the rules alone; returns it and any new subquery.

    Before stopping, a question whose evidence named a bridge entity asks about it
    (`views.pending_bridge`): one global hop for the entity plus what the evidence left open.
    """
    exhausted = budget_exhausted(state, context)
    if exhausted:
        return stop(exhausted), []
    history = state.get("history", [])
    targets = [s for s in current_subqueries(state) if not spent_bridge(s, history)]
    for subquery in targets:
        if should_replan(state, context, subquery["index"]):
            return replan_action(f"subquery {subquery['index']} failed from several anchors"), []
        decided = _for_subquery(state, context, graph, subquery)
        if decided is not None:
            return decided
    bridged = _bridge(state, context, graph)
    if bridged is not None:
        return bridged
    if not targets:
        return stop("every subquery is answerable"), []
    return stop("every open subquery has exhausted its ladder"), []


def _bridge(
    state: FiFState, context: FiFContext, graph: LayeredGraph
) -> tuple[Action, list[Subquery]] | None:
    """Return a global hop for the pending bridge subquery, if any (views.pending_bridge).

    A bridge whose page a hop already found, and whose page links on to no page the run
    has not walked through (`nodes.fif.bridge.bridge_page_found`), needs no hop of its own: it
    joins the plan answered, where the reranker reads it as a facet, and the next pending
    bridge is weighed. If every pending bridge was found so, the run stops.
    """
    planned = list(state.get("subqueries", []))
    found: list[Subquery] = []
    while pending := pending_bridge({**state, "subqueries": planned}, context.tuning.bridge_hops):
        source, text = pending
        if not bridge_page_found(graph, state, source.get("bridge_pages", [])):
            strategy = next_rung(state.get("history", []), text, None, context, 1)
            if strategy is None:
                break
            subquery = bridge_entry(len(planned), text, source)
            why = f"bridge: the evidence of step {source['step']} names the next entity"
            return search(subquery, strategy, None, why), [*found, subquery]
        facet = bridge_entry(len(planned), text, source, "answerable")
        found.append(facet)
        planned.append(facet)
    if not found:
        return None
    return stop(f"{len(found)} bridge page(s) already found: kept as reranker facets"), found


def _for_subquery(
    state: FiFState, context: FiFContext, graph: LayeredGraph, subquery: Subquery
) -> tuple[Action, list[Subquery]] | None:
    history = state.get("history", [])
    steps = steps_for(history, subquery["index"])
    text = subquery["text"]
    if not steps:
        anchor = _open_bridge(history)
        strategy = next_rung(history, text, anchor, context, 0 if anchor is not None else 1)
        if strategy is not None:
            why = (
                f"new subquery: follow the links of step {anchor}"
                if anchor is not None
                else "new subquery: cheapest global hop"
            )
            return search(
                subquery, strategy, anchor if strategy["doc_mode"] == "neighbors" else None, why
            ), []
        return None
    last = steps[-1]
    if last["success"] and not last["answerable"]:
        strategy = next_rung(history, text, last["step"], context, 0)
        if strategy is not None and strategy["doc_mode"] == "neighbors":
            return search(
                subquery,
                strategy,
                last["step"],
                f"step {last['step']} is relevant but links on: follow its links",
            ), []
        return None  # escalation follows failures: a relevant find whose links are spent ends it
    if should_backtrack(state, context, subquery["index"]):
        backtracked = _backtrack(state, context, graph, subquery)
        if backtracked is not None:
            return backtracked
    strategy = next_rung(history, text, last["anchor"], context, rung_of(last["strategy"]) + 1)
    if strategy is None and last["anchor"] is not None:
        strategy = next_rung(history, text, None, context, 1)
    if strategy is None:
        return None
    anchor = last["anchor"] if strategy["doc_mode"] == "neighbors" else None
    return search(subquery, strategy, anchor, f"step {last['step']} failed: escalate one rung"), []


def _open_bridge(history: list[StepRecord]) -> int | None:
    """Return the latest success that links on and whose links were not followed yet."""
    followed = {h["anchor"] for h in history if h["strategy"]["doc_mode"] == "neighbors"}
    for record in reversed(history):
        if record["success"] and not record["answerable"] and record["step"] not in followed:
            return record["step"]
    return None


def _backtrack(
    state: FiFState, context: FiFContext, graph: LayeredGraph, subquery: Subquery
) -> tuple[Action, list[Subquery]] | None:
    history = state.get("history", [])
    exclude = failed_anchors(history, subquery["index"])
    target = best_success(history, exclude)
    if target is None:
        return None
    top = target["components"][0]
    rewritten_text = f"{subquery['text']} ({graph.title(top['doc_id'])})"
    rewrite: Subquery = {
        "index": len(state.get("subqueries", [])),
        "text": rewritten_text,
        "status": "unknown",
        "answer": None,
        "origin": "rewrite",
        "parent": subquery["index"],
    }
    strategy = next_rung(history, rewritten_text, target["step"], context, 0)
    if strategy is None:
        return None
    anchor = target["step"] if strategy["doc_mode"] == "neighbors" else None
    reason = (
        f"{context.backtrack_after_failures}+ failures: re-anchor to step {target['step']} "
        "and rewrite the subquery"
    )
    return search(rewrite, strategy, anchor, reason), [rewrite]


def _latest_success(history: list[StepRecord]) -> int | None:
    return next((h["step"] for h in reversed(history) if h["success"]), None)


def enforce(action: Action, state: FiFState, context: FiFContext) -> Action:
    """Make a proposed action obey the rules.

    Budgets, ablations, no repeated failed route, and escalation only after a recorded
    failure.
    """
    exhausted = budget_exhausted(state, context)
    if exhausted:
        return stop(exhausted, action["decided_by"])
    refusal = replan_refusal(state, context) if action["kind"] == "replan" else None
    if refusal:  # the same limits as the evaluator's edge to the planner
        return {**action, "kind": "stop", "reason": action["reason"] + f" [rules: {refusal}]"}
    if action["kind"] != "search":
        return action
    history = state.get("history", [])
    anchor = action.get("anchor")
    if anchor is not None and not 0 <= anchor < len(history):
        anchor = None
    strategy = action["strategy"]
    steps = steps_for(history, action["subquery_index"])
    failed_rungs = [rung_of(h["strategy"]) for h in steps if not h["success"]]
    ceiling = max(failed_rungs, default=0) + 1 if failed_rungs else 1
    start = min(rung_of(strategy), ceiling)
    if context.no_backtracking and anchor is not None:
        anchor = _latest_success(history)  # no re-anchoring to older successes
    fixed = next_rung(history, action["subquery"], anchor, context, start)
    if fixed is None and start > 0:  # e.g. a global hop under no_global_hop: try the links
        anchor = anchor if anchor is not None else _latest_success(history)
        fixed = next_rung(history, action["subquery"], anchor, context, 0)
    if fixed is None:
        return stop("no allowed route left for the proposed subquery", action["decided_by"])
    notes = []
    if fixed != strategy or repeats_failure(history, action["subquery"], anchor, strategy):
        notes.append(f"rules changed {strategy} to {fixed}")
    if fixed["doc_mode"] != "neighbors":
        anchor = None  # only a neighbors hop starts from an anchor
    reason = action["reason"] + (f" [{'; '.join(notes)}]" if notes else "")
    return {**action, "strategy": fixed, "anchor": anchor, "reason": reason}


def action_refusal(
    action: Action, rewrites: list[Subquery], state: FiFState, context: FiFContext
) -> str | None:
    """Return why an LLM-proposed action is refused (the orchestrator's check), or None.

    No stop while nothing is retrieved or a planned subquery was never searched and budget
    remains; a search's subquery must share content words with the question or the plan.
    """
    if budget_exhausted(state, context):
        return None  # enforce() stops anyway
    if action["kind"] == "stop":
        if not state.get("candidates"):
            return "stop with nothing retrieved while budget remains"
        searched = {h["subquery_index"] for h in state.get("history", [])}
        untried = [s["index"] for s in unresolved(state.get("subqueries", []))
                   if s["index"] not in searched]  # fmt: skip
        return f"stop before subqueries {untried} were searched" if untried else None
    if action["kind"] == "search" and rewrites and rewrites[0]["origin"] != "bridge":
        grounds = [state["question"], *(s["text"] for s in state.get("subqueries", []))]
        return ungrounded([action["subquery"]], grounds)
    return None
