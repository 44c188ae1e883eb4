"""A bridge whose page a hop already found needs no hop of its own, unless its page leads on.

On the mini corpus, step 0 finds Marie Curie's page and its evidence names Warsaw; the
link hop of step 1 reaches Warsaw's page. Warsaw links back to Marie Curie only, so the
bridge's own global hop could find nothing new: it joins the plan as an answered
subquery (a reranker facet) and the run stops. Pierre Curie's page links on to pages no
step had on top (the Nobel Prize, Becquerel), so a bridge to him still gets its hop: a
chain of three or four pages reads its next entity there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_records import candidate, step, subquery
from langgraph.runtime import Runtime

from nodes.fif.bridge import bridge_page_found
from nodes.fif.orchestrator import orchestrator
from nodes.fif.policy import rule_action
from nodes.fif.rules import LADDER
from state.fif_context import FiFContext
from tools.corpus_index import open_index

MARIE = ["marie_curie::p0"]


def _state(pages: list[str], found: list[str], bridges: int = 1) -> dict:
    """Step 0 names `bridges` bridges to `pages`; step 1's link hop found `found`."""
    first = step(0, rung=1, success=True, answerable=False, components=MARIE)
    first = {**first, "bridge": "Warsaw born", "bridge_pages": pages}
    hop = step(1, rung=0, anchor=0, success=True, answerable=True, components=found)
    history = [first, hop]
    plan = [subquery(0, "answerable")]
    if bridges == 2:  # a second subquery, answered by step 2, names Pierre Curie
        plan.append(subquery(1, "answerable"))
        second = step(2, 1, rung=1, success=True, components=["radium::p0"])
        history.append({**second, "bridge": "Pierre Curie prize", "bridge_pages": ["pierre_curie"]})
    return {
        "question": "Where was Marie Curie born?",
        "history": history,
        "subqueries": plan,
        "candidates": {c: candidate(c) for c in [*MARIE, *found, "radium::p0"]},
    }


@pytest.mark.parametrize(
    ("pages", "found", "expected"),
    [
        (["warsaw"], ["warsaw::p1"], True),  # found, and it links back only
        (["warsaw"], ["radium::p0"], False),  # not found yet: the hop would find it
        (["pierre_curie"], ["pierre_curie::p0"], False),  # found, but it leads on
        ([], ["warsaw::p1"], False),  # the entity names no page: only a search finds it
    ],
    ids=["found-leads-nowhere", "not-found", "found-leads-on", "no-page"],
)
def test_bridge_page_found(mini_index: Path, pages, found, expected) -> None:
    graph = open_index(str(mini_index)).graph
    assert bridge_page_found(graph, _state(pages, found), pages) is expected


def test_a_found_bridge_page_becomes_a_facet_and_the_run_stops(mini_index: Path) -> None:
    graph = open_index(str(mini_index)).graph
    action, added = rule_action(_state(["warsaw"], ["warsaw::p1"]), FiFContext(), graph)
    assert action["kind"] == "stop" and "kept as reranker facets" in action["reason"]
    assert [(s["index"], s["text"], s["status"], s["origin"]) for s in added] == [
        (1, "Warsaw born", "answerable", "bridge")
    ]


def test_a_bridge_not_found_yet_gets_its_global_hop(mini_index: Path) -> None:
    graph = open_index(str(mini_index)).graph
    action, added = rule_action(_state(["warsaw"], ["radium::p0"]), FiFContext(), graph)
    assert action["kind"] == "search" and action["strategy"] == LADDER[1]
    assert [(s["text"], s["status"]) for s in added] == [("Warsaw born", "unknown")]


def test_after_a_found_bridge_the_next_pending_one_is_searched(mini_index: Path) -> None:
    graph = open_index(str(mini_index)).graph
    state = _state(["warsaw"], ["warsaw::p1"], bridges=2)
    action, added = rule_action(state, FiFContext(), graph)
    assert action["kind"] == "search" and action["subquery"] == "Pierre Curie prize"
    assert [(s["index"], s["status"]) for s in added] == [(2, "answerable"), (3, "unknown")]
    assert action["subquery_index"] == 3


def test_the_orchestrator_keeps_the_facets_of_a_stop(mini_index: Path) -> None:
    context = FiFContext(index_dir=str(mini_index))
    update = orchestrator(_state(["warsaw"], ["warsaw::p1"]), Runtime(context=context))
    assert update["next_action"]["kind"] == "stop"
    assert [s["text"] for s in update["subqueries"]] == ["Warsaw born"]
