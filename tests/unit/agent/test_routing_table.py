"""Table tests of the graph's conditional edges (graph_agent/routing.py): one row per route."""

from __future__ import annotations

import pytest
from agent_records import replan_decision, step, subquery
from langgraph.runtime import Runtime

from graph_agent.fif_graph import graph
from graph_agent.routing import after_evaluator, after_orchestrator, after_planner, after_reranker
from nodes.fif.rules import MAX_REPLANS
from state.fif_context import FiFContext

OPEN = [subquery(0), subquery(1)]
TWO_ANCHORS = [step(0), step(1, rung=0, anchor=0)]
"""Subquery 0 failed from two distinct anchors (a global hop, then step 0's links)."""


def runtime(**overrides) -> Runtime[FiFContext]:
    return Runtime(context=FiFContext(**overrides))


@pytest.mark.parametrize(
    ("state", "context", "expected"),
    [
        ({"subqueries": OPEN, "history": [step(0)]}, FiFContext(), "orchestrator"),
        ({"subqueries": OPEN, "history": TWO_ANCHORS}, FiFContext(), "planner"),
        ({"subqueries": OPEN, "history": TWO_ANCHORS}, FiFContext(max_steps=2), "reranker"),
        ({"subqueries": [subquery(0, "answerable")], "history": [step(0, success=True)]},
         FiFContext(), "reranker"),
        ({"subqueries": OPEN, "history": TWO_ANCHORS}, FiFContext(no_planner=True), "orchestrator"),
        ({"subqueries": OPEN, "history": TWO_ANCHORS,
          "decisions": [replan_decision()] * MAX_REPLANS}, FiFContext(), "orchestrator"),
        ({"subqueries": OPEN, "history": TWO_ANCHORS},
         FiFContext(replan_after_failed_anchors=3), "orchestrator"),
        ({"subqueries": OPEN, "history": [step(0, 1), step(1, 1, rung=0, anchor=0), step(2)]},
         FiFContext(), "orchestrator"),  # subquery 1 qualifies, but 0 was just worked on
        ({"subqueries": OPEN, "history": [step(0), step(1, 1), step(2, rung=0, anchor=0)]},
         FiFContext(), "planner"),  # other subqueries' steps in between don't matter
        ({"subqueries": OPEN}, FiFContext(), "orchestrator"),
    ],
    ids=[
        "one-failure",
        "two-anchors-replan",
        "budget-before-replan",
        "all-answerable",
        "no-planner",
        "replan-limit",
        "threshold-3",
        "other-subquery-qualifies",
        "interleaved",
        "no-history",
    ],
)  # fmt: skip
def test_after_evaluator(state, context, expected) -> None:
    assert after_evaluator(state, Runtime(context=context)) == expected


@pytest.mark.parametrize(
    ("state", "context", "expected"),
    [
        ({"subqueries": OPEN}, FiFContext(), "orchestrator"),
        ({"subqueries": OPEN, "history": [step(0), step(1)]}, FiFContext(max_steps=2), "reranker"),
        ({"subqueries": [subquery(0, "answerable")]}, FiFContext(), "reranker"),
    ],
    ids=["fresh-plan", "budget", "answered"],
)
def test_after_planner(state, context, expected) -> None:
    assert after_planner(state, Runtime(context=context)) == expected


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("search", "traverser"), ("replan", "planner"), ("stop", "reranker")],
)
def test_after_orchestrator(kind, expected) -> None:
    action = {"kind": kind, "reason": "", "decided_by": "rules"}
    assert after_orchestrator({"next_action": action}) == expected


def test_after_orchestrator_without_an_action_is_a_bug() -> None:
    with pytest.raises(ValueError, match="no action"):
        after_orchestrator({})


@pytest.mark.parametrize(("answer", "expected"), [(True, "answerer"), (False, "__end__")])
def test_after_reranker(answer, expected) -> None:
    assert after_reranker({}, runtime(answer=answer)) == expected


def test_the_compiled_graph_shows_every_route_of_the_edges() -> None:
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert {("evaluator", "reranker"), ("evaluator", "planner"), ("evaluator", "orchestrator"),
            ("orchestrator", "planner"), ("planner", "orchestrator")} <= edges  # fmt: skip
