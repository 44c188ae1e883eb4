"""Table tests of nodes/fif/policy.py: `enforce` on proposed actions and the rule orchestrator."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_records import LLM_LLM, VECTOR, replan_decision, step, subquery

from nodes.fif.policy import enforce, rule_action
from nodes.fif.rules import FIXED_GRANULARITY, LADDER, MAX_REPLANS
from state.fif_context import FiFContext
from tools.corpus_index import open_index

CTX = FiFContext()

NEIGHBORS = LADDER[0]


def proposal(kind: str = "search", rung: int = 1, anchor: int | None = None, index: int = 0):
    action = {"kind": kind, "reason": "LLM proposal", "decided_by": "llm"}
    if kind == "search":
        action.update(
            subquery=f"find target {index}",
            subquery_index=index,
            strategy=LADDER[rung],
            anchor=anchor,
        )
    return action


SUCCESS_0 = [step(0, 1, success=True)]


@pytest.mark.parametrize(
    ("history", "action", "context", "kind", "strategy", "anchor", "changed"),
    [
        ([step(i) for i in range(8)], proposal(), CTX, "stop", None, None, False),
        ([], proposal("replan"), FiFContext(no_planner=True), "stop", None, None, False),
        ([], proposal("replan"), CTX, "replan", None, None, False),
        ([], proposal("stop"), CTX, "stop", None, None, False),
        ([], proposal(rung=5), CTX, "search", VECTOR, None, True),  # no failure yet
        ([step(0)], proposal(rung=5), CTX, "search", LADDER[2], None, True),  # one rung up
        ([step(0)], proposal(rung=1), CTX, "search", LADDER[2], None, True),  # failed route
        ([step(0)], proposal(rung=2), CTX, "search", LADDER[2], None, False),
        ([step(0), step(1, rung=2)], proposal(rung=1), CTX, "search", LADDER[3], None, True),
        (SUCCESS_0, proposal(rung=0, anchor=0), CTX, "search", NEIGHBORS, 0, False),
        (SUCCESS_0, proposal(rung=0, anchor=5), CTX, "search", VECTOR, None, True),
        (SUCCESS_0, proposal(rung=0, anchor=-1), CTX, "search", VECTOR, None, True),
        (SUCCESS_0, proposal(rung=2, anchor=0), CTX, "search", VECTOR, None, True),
        (
            [step(0), step(1, rung=2), step(2, rung=3)],
            proposal(rung=4),
            FiFContext(no_llm_traversal=True),
            "stop", None, None, False,
        ),
        (SUCCESS_0, proposal(rung=0, anchor=0), FiFContext(no_global_hop=True), "search", NEIGHBORS,
         0, False),
        (SUCCESS_0, proposal(rung=1), FiFContext(no_global_hop=True), "search", NEIGHBORS, 0, True),
        (
            [],
            proposal(rung=1),
            FiFContext(fixed_granularity=True),
            "search", {**VECTOR, "granularity": FIXED_GRANULARITY}, None, True,
        ),
    ],
    ids=[
        "budget-stops",
        "replan-under-no-planner",
        "replan",
        "stop",
        "no-escalation-before-failure",
        "escalate-one-rung-after-failure",
        "failed-pattern-changed",
        "next-rung-kept",
        "below-ceiling-pushed-past-tried",
        "neighbors-anchor-kept",
        "anchor-out-of-range",
        "anchor-negative",
        "anchor-dropped-for-vector-hop",
        "no-llm-traversal",
        "no-global-hop-neighbors",
        "no-global-hop-vector-follows-links",
        "fixed-granularity",
    ],
)  # fmt: skip
def test_enforce(history, action, context, kind, strategy, anchor, changed) -> None:
    state = {"history": history, "subqueries": [subquery(0), subquery(1, "answerable")]}
    result = enforce(action, state, context)
    assert result["kind"] == kind and result["decided_by"] == "llm"
    if kind == "search":
        assert (result["strategy"], result["anchor"]) == (strategy, anchor)
        assert ("rules changed" in result["reason"]) is changed
    if action["kind"] == "replan" and kind == "stop":
        assert result["reason"].endswith("[rules: no planner]")


def test_an_llm_replan_past_the_replan_limit_stops_as_the_edge_would() -> None:
    state = {"history": [step(0)], "decisions": [replan_decision()] * MAX_REPLANS}
    result = enforce(proposal("replan"), state, CTX)
    assert result["kind"] == "stop" and result["decided_by"] == "llm"
    assert result["reason"].endswith(f"[rules: replan limit ({MAX_REPLANS}) reached]")


def test_enforce_never_mutates_the_proposal() -> None:
    action = proposal(rung=5)
    enforce(action, {"history": [step(0)]}, CTX)
    assert action == proposal(rung=5)


MARIE = ["marie_curie::p0"]


def relevant(number: int, components: list[str]) -> dict:
    """A successful vector hop whose evidence links on (success, not answerable)."""
    return step(number, rung=2, success=True, answerable=False, components=components)


RELEVANT_0 = step(0, rung=1, success=True, answerable=False, components=MARIE)


@pytest.mark.parametrize(
    ("history", "subqueries", "context", "expected"),
    [
        ([step(i) for i in range(8)], [subquery(0)], CTX, ("stop", "step budget")),
        ([], [subquery(0, "answerable")], CTX, ("stop", "every subquery is answerable")),
        ([], [subquery(0)], CTX, ("search", 0, VECTOR, None, "cheapest global hop")),
        ([step(0)], [subquery(0)], CTX, ("search", 0, LADDER[2], None, "escalate")),
        (
            [step(0, success=True, answerable=False, components=MARIE)],
            [subquery(0, "not answerable")],
            CTX,
            ("search", 0, NEIGHBORS, 0, "follow its links"),
        ),
        (
            [step(0, 1, success=True, components=MARIE), step(1), step(2, rung=2)],
            [subquery(0), subquery(1, "answerable")],
            CTX,
            ("search", 2, NEIGHBORS, 0, "re-anchor to step 0"),
        ),
        (
            [step(0, 1, success=True, components=MARIE), step(1), step(2, rung=2)],
            [subquery(0), subquery(1, "answerable")],
            FiFContext(no_backtracking=True),
            ("search", 0, LADDER[3], None, "escalate"),
        ),
        (
            [step(0, 1, success=True, components=MARIE), step(1), step(2, rung=0, anchor=0)],
            [subquery(0), subquery(1, "answerable")],
            CTX,
            ("replan", "failed from several anchors"),
        ),
        (
            [step(i, rung=i) for i in range(1, 6)],
            [subquery(0)],
            CTX,
            ("stop", "exhausted its ladder"),
        ),
        (
            [RELEVANT_0, step(1, rung=0, anchor=0), relevant(2, MARIE)],
            [subquery(0, "not answerable")],
            CTX,
            ("stop", "exhausted its ladder"),  # the same top find: its links were followed
        ),
        (
            [RELEVANT_0, step(1, rung=0, anchor=0), relevant(2, ["warsaw::p0"])],
            [subquery(0, "not answerable")],
            CTX,
            ("search", 0, NEIGHBORS, 2, "follow its links"),  # new evidence links on
        ),
        (
            [step(0, rung=5)],
            [subquery(0), subquery(1)],
            CTX,
            ("search", 1, VECTOR, None, "new subquery"),  # a failed LLM/LLM hop advances
        ),
    ],
    ids=[
        "budget",
        "all-answered",
        "new-subquery",
        "escalate",
        "follow-links",
        "backtrack",
        "no-backtracking",
        "replan",
        "ladder-exhausted",
        "links-spent-end-the-ladder",
        "new-evidence-links-on",
        "advance-after-llm-llm",
    ],
)
def test_rule_action(mini_index: Path, history, subqueries, context, expected) -> None:
    graph = open_index(str(mini_index)).graph
    action, rewrites = rule_action({"history": history, "subqueries": subqueries}, context, graph)
    assert action["kind"] == expected[0] and expected[-1] in action["reason"]
    assert action["decided_by"] == "rules"
    if action["kind"] == "search":
        _, index, strategy, anchor, _ = expected
        assert (action["subquery_index"], action["strategy"], action["anchor"]) == (
            index,
            strategy,
            anchor,
        )
    is_rewrite = action["kind"] == "search" and action["subquery_index"] >= len(subqueries)
    assert bool(rewrites) is is_rewrite


def test_backtracking_rewrites_the_subquery_with_the_anchor_title(mini_index: Path) -> None:
    graph = open_index(str(mini_index)).graph
    history = [step(0, 1, success=True, components=MARIE), step(1), step(2, rung=2)]
    state = {"history": history, "subqueries": [subquery(0), subquery(1, "answerable")]}
    action, [rewrite] = rule_action(state, CTX, graph)
    assert rewrite == {
        "index": 2,
        "text": "find target 0 (Marie Curie)",
        "status": "unknown",
        "answer": None,
        "origin": "rewrite",
        "parent": 0,
    }
    assert action["subquery"] == rewrite["text"] and action["strategy"] != LLM_LLM
