"""Each FiF node called directly with a dict state and Runtime(context=FiFContext(...))."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from agent_records import candidate, step, subquery
from agent_runs import FLAG_QUESTION, llm_context
from langgraph.runtime import Runtime
from scripted_model import ScriptedChatModel, verdict

import graph_agent.fif_graph
from graph_agent.api import ask
from nodes.fif.answerer import answerer
from nodes.fif.chain_evidence import chains, residual_queries, source_terms
from nodes.fif.evaluator import EvaluatorUpdate, evaluator
from nodes.fif.fusion import facets
from nodes.fif.orchestrator import OrchestratorUpdate, orchestrator
from nodes.fif.planner import PlannerUpdate, planner
from nodes.fif.reranker import reranker
from nodes.fif.rules import LADDER
from nodes.fif.traverser import TraverserUpdate, traverser
from state.fif_context import FiFContext
from tools.corpus_index import open_index

COMPARISON = "Who was born first, Marie Curie or Pierre Curie?"


def runtime(index: Path, **overrides) -> Runtime[FiFContext]:
    return Runtime(context=FiFContext(index_dir=str(index), **overrides))


@pytest.mark.parametrize(
    ("question", "overrides", "expected"),
    [
        (COMPARISON, {}, [COMPARISON, "Marie Curie", "Pierre Curie"]),
        (COMPARISON, {"max_subqueries": 2}, [COMPARISON, "Marie Curie"]),
        (COMPARISON, {"no_planner": True}, [COMPARISON]),
        ("Where was Marie Curie born?", {}, ["Where was Marie Curie born?"]),
        (FLAG_QUESTION, {}, [FLAG_QUESTION]),
    ],
    ids=["comparison-split", "max-subqueries", "no-planner", "one-entity", "no-comparison"],
)
def test_planner_splits_only_comparisons_of_named_entities(
    mini_index: Path, question, overrides, expected
) -> None:
    update = planner({"question": question}, runtime(mini_index, **overrides))
    assert set(update) == set(PlannerUpdate.__annotations__) - {"fallbacks", "decisions"}
    subqueries = update["subqueries"]
    assert len(subqueries) == len(expected)
    assert subqueries[0]["text"] == question
    for item, entity, index in zip(subqueries, expected, range(len(expected)), strict=True):
        assert entity in item["text"] and item["index"] == index
        assert (item["status"], item["answer"], item["origin"]) == ("unknown", None, "initial")


def test_the_plan_is_declared_ahead_and_embedded_as_declared(mini_index: Path, monkeypatch) -> None:
    """The planner declares the question, the hops' subqueries and the reranker's facets as
    batches; without a helper process each is embedded whole when first needed."""
    index = open_index(mini_index)  # the shared index the nodes open
    index.forget_queries()
    batches: list[list[str]] = []
    embed = index._embed_texts  # what embeds a batch in this process, one pass a text
    monkeypatch.setattr(
        index, "_embed_texts", lambda texts: batches.append(list(texts)) or embed(texts)
    )
    question = "Is Warsaw older than Paris, and which river runs through each?"
    update = planner({"question": question}, runtime(mini_index))
    assert batches == []  # declared, not embedded: the hash embedder has no helper
    subqueries = [s["text"] for s in update["subqueries"]]
    texts = facets(question, subqueries)
    index.embed_query(subqueries[0])  # the first hop
    assert batches == [[question]]
    index.embed_queries(texts)  # the reranker: the rest of the declared batches
    others = [s for s in subqueries if s != question]
    clauses = [t for t in texts if t != question and t not in subqueries]
    assert len(clauses) > 1 and batches == [[question], *([others] if others else []), clauses]


def test_ask_declares_the_question_before_the_graph_starts(mini_index: Path, monkeypatch) -> None:
    index = open_index(mini_index)  # the shared index ask and the nodes open
    declared: list[list[str]] = []
    monkeypatch.setattr(index, "prefetch_queries", lambda texts: declared.append(list(texts)))
    at_start: list[list[str]] = []

    class Graph:  # stands in for the compiled graph: records what was declared by then
        name = "fif"

        def invoke(self, state, **_):
            at_start.extend(declared)
            return {}

    monkeypatch.setattr(graph_agent.fif_graph, "graph", Graph())
    ask(FLAG_QUESTION, FiFContext(index_dir=str(mini_index)))
    assert at_start == [[FLAG_QUESTION]]


def test_replanning_appends_new_subqueries_only(mini_index: Path) -> None:
    state = {
        "question": FLAG_QUESTION,
        "subqueries": [subquery(0, "not answerable", text=FLAG_QUESTION)],
        "history": [step(0, components=["marie_curie::p0"], success=True, answerable=False)],
    }
    state["next_action"] = {"kind": "replan", "reason": "LLM: plan is stale", "decided_by": "llm"}
    before = copy.deepcopy(state)
    update = planner(state, runtime(mini_index))
    assert set(update) == {"subqueries", "cost"} and state == before  # the orchestrator recorded it
    fresh = update["subqueries"]
    assert 1 <= len(fresh) <= 2 and [s["index"] for s in fresh] == list(range(1, len(fresh) + 1))
    assert {s["origin"] for s in fresh} == {"replan"} and FLAG_QUESTION not in [
        s["text"] for s in fresh
    ]
    assert planner(state, runtime(mini_index, no_planner=True)).keys() == {"cost"}


def test_a_replan_sent_by_the_evaluators_edge_is_recorded_as_a_decision(mini_index: Path) -> None:
    state = {
        "question": FLAG_QUESTION,
        "subqueries": [subquery(0, "not answerable", text=FLAG_QUESTION)],
        "history": [
            step(0, components=["marie_curie::p0"]),
            step(1, rung=0, anchor=0, components=["warsaw::p0"]),
        ],
        "next_action": {"kind": "search", "reason": "escalate", "decided_by": "rules"},
    }
    update = planner(state, runtime(mini_index))
    [decision] = update["decisions"]
    assert update["subqueries"] and decision == {
        "kind": "replan",
        "reason": "subquery 0 failed from several anchors",
        "decided_by": "rules",
    }


def test_orchestrator_offline_decides_the_cheapest_global_hop(mini_index: Path) -> None:
    state = {"question": FLAG_QUESTION, "subqueries": [subquery(0, text=FLAG_QUESTION)]}
    update = orchestrator(state, runtime(mini_index))
    assert set(update) <= set(OrchestratorUpdate.__annotations__)
    action = update["next_action"]
    assert update["decisions"] == [action] and "subqueries" not in update
    assert (action["kind"], action["strategy"], action["decided_by"]) == (
        "search",
        LADDER[1],
        "offline",
    )


def search_state(rung: int = 1, anchor: int | None = None, history=()) -> dict:
    action = {
        "kind": "search",
        "subquery": FLAG_QUESTION,
        "subquery_index": 0,
        "strategy": LADDER[rung],
        "anchor": anchor,
        "reason": "test",
        "decided_by": "rules",
    }
    return {
        "question": FLAG_QUESTION,
        "subqueries": [subquery(0, text=FLAG_QUESTION)],
        "history": list(history),
        "next_action": action,
    }


def test_traverser_returns_only_its_keys_and_mutates_nothing(mini_index: Path) -> None:
    state = search_state(history=[step(0, components=["warsaw::p1"])])
    before = copy.deepcopy(state)
    update = traverser(state, runtime(mini_index, components_per_hop=3))
    assert state == before
    assert set(update) == set(TraverserUpdate.__annotations__) - {"fallbacks"}
    pending = update["pending_step"]
    assert pending["step"] == 1 and not pending["success"] and pending["reason"] == ""
    assert len(pending["components"]) == 3
    assert set(update["candidates"]) == {c["id"] for c in pending["components"]}
    assert {c["step"] for c in update["candidates"].values()} == {1}


def test_traverser_refuses_anything_but_a_search(mini_index: Path) -> None:
    with pytest.raises(ValueError, match="needs a search action"):
        traverser({"question": "q", "next_action": None}, runtime(mini_index))


def test_evaluator_appends_the_judged_step_to_history(mini_index: Path) -> None:
    context = runtime(mini_index, components_per_hop=3)
    earlier = step(0, components=["warsaw::p1"])
    state = search_state(history=[earlier])
    state["pending_step"] = traverser(state, context)["pending_step"]
    before = copy.deepcopy(state)
    update = evaluator(state, context)
    assert state == before and set(update) == set(EvaluatorUpdate.__annotations__) - {"fallbacks"}
    [record] = update["history"]  # only the new step; the reducer appends it
    assert record["step"] == 1 and record["reason"] and update["pending_step"] is None
    assert "evaluator: offline" in record["notes"]
    if record["success"]:  # a failure offline leaves the plan as it was
        assert update["subqueries"][0]["index"] == 0
    else:
        assert update["subqueries"] == []
    with pytest.raises(ValueError, match="without a pending traversal"):
        evaluator({**state, "pending_step": None}, context)


def test_an_llm_answerable_verdict_on_an_empty_hop_is_a_failure(mini_index: Path) -> None:
    model = ScriptedChatModel(roles={"evaluator": [verdict("answerable", [(1, "red")])]})
    state = search_state()
    state["pending_step"] = {**step(0, subquery=FLAG_QUESTION, components=[]), "reason": ""}
    update = evaluator(state, Runtime(context=llm_context(mini_index, model)))
    [record] = update["history"]
    assert not record["success"] and not record["answerable"]
    assert update["subqueries"][0]["status"] == "not answerable"


def test_the_evaluator_declares_chain_residuals(mini_index: Path, monkeypatch) -> None:
    """Declared after each step, the residuals are embedded before the reranker needs them."""
    index = open_index(mini_index)  # the shared index the nodes open
    declared: list[str] = []
    monkeypatch.setattr(index, "prefetch_queries", lambda texts: declared.extend(texts))
    ids = ["marie_curie::p0", "warsaw::i0", "radium::p1"]
    state = search_state()
    state["candidates"] = {c: candidate(c) for c in ids}
    state["pending_step"] = {**step(0, subquery=FLAG_QUESTION, components=ids[:1]), "reason": ""}
    evaluator(state, runtime(mini_index))
    pairs = chains(index, ids)
    residuals = residual_queries(FLAG_QUESTION, source_terms(index, pairs))
    assert ("marie_curie::p0", "warsaw::i0") in pairs and set(residuals.values()) <= set(declared)


def test_reranker_puts_a_link_target_right_after_its_source(mini_index: Path) -> None:
    others = ["university_of_paris::p0", "pierre_curie::p2", "warsaw::p0", "radium::p1"]
    ids = ["marie_curie::p0", "warsaw::i0", *others]
    state = {"question": FLAG_QUESTION, "candidates": {c: candidate(c) for c in ids}}
    ranked = [r["component_id"] for r in reranker(state, runtime(mini_index))["ranking"]]
    assert ranked[:2] == ["marie_curie::p0", "warsaw::i0"]  # born in Warsaw -> Warsaw's flag
    alone = {c: candidate(c) for c in ["warsaw::i0", *others]}
    ranked_alone = reranker({**state, "candidates": alone}, runtime(mini_index))["ranking"]
    assert [r["component_id"] for r in ranked_alone].index("warsaw::i0") > 1  # the chain did it
    assert reranker({**state, "candidates": {}}, runtime(mini_index))["ranking"] == []


def test_answerer_offline_returns_the_answer_span(mini_index: Path) -> None:
    state = {
        "question": "What is the atomic number of polonium?",
        "ranking": [{"component_id": "polonium::p0", "doc_id": "polonium", "type": "paragraph",
                     "score": 1.0}],
    }  # fmt: skip
    update = answerer(state, runtime(mini_index))
    assert update["answer"] == "84"  # the span, not "Polonium is a chemical element ... 84."
    assert answerer({**state, "ranking": []}, runtime(mini_index))["answer"] is None
