"""IRCoT offline on the mini bundle: the chain query moves, the stop rules end the loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph

from graph_agent.binding import with_checkpointer
from graph_agent.ircot_graph import ask_ircot, build_ircot_graph, graph
from nodes.ircot import chain
from nodes.ircot.chain import offline_thought
from state.ircot_state import IrcotContext
from tools.corpus_index import open_index
from tools.cost import CostMeter

QUESTION = "What is the atomic number of the element named after Marie Curie's native country?"


def nodes_of(history: list[dict]) -> list[str]:
    return [step["node"] for step in history]


@pytest.mark.parametrize("mode", ["sparse", "dense", "hybrid"])
def test_every_search_mode_retrieves_k_with_the_question(
    mode: str, offline_context: IrcotContext
) -> None:
    context = offline_context.model_copy(update={"search_mode": mode})
    first = ask_ircot(QUESTION, context).history[0]
    assert len(first["retrieved"]) == context.retrieve_k == len(first["new_components"])


def test_the_served_graph_loops_retriever_and_reasoner_then_ranks() -> None:
    assert set(build_ircot_graph().nodes) == {"retriever", "reasoner", "ranker"}
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert {("retriever", "reasoner"), ("reasoner", "retriever"), ("ranker", "__end__")} <= edges
    assert {("retriever", "ranker"), ("reasoner", "ranker")} <= edges


def test_each_chain_sentence_is_the_next_query(offline_context: IrcotContext) -> None:
    result = ask_ircot(QUESTION, offline_context, thread_id="chain")
    history = result.history
    retrievals = [s for s in history if s["node"] == "retriever"]
    reasonings = [s for s in history if s["node"] == "reasoner"]
    assert retrievals[0]["query"] == QUESTION and retrievals[0]["decided_by"] == "question"
    assert len(reasonings) >= 2
    for reasoning, following in zip(reasonings, retrievals[1:], strict=False):
        assert following["query"] == reasoning["sentence"] and following["decided_by"] == "offline"
    queries = [s["query"] for s in retrievals]
    assert len(set(queries)) == len(queries), "the query changes at every step"
    sources = [s["source"] for s in result.subqueries]
    assert all(sources) and len(set(sources)) == len(sources), "no sentence is used twice"
    assert result.cost["llm_calls"] == 0 and result.cost["vector_ms"] > 0
    assert result.thread_id == "chain" and result.answer is None


def test_the_ranking_keeps_first_retrieved_first(offline_context: IrcotContext) -> None:
    result = ask_ircot(QUESTION, offline_context)
    found = [c for s in result.history if s["node"] == "retriever" for c in s["new_components"]]
    ranked = [r["component_id"] for r in result.ranking]
    assert len(ranked) == offline_context.top_k == len(set(ranked))
    collected = found[: offline_context.top_k]
    assert ranked[: len(collected)] == collected
    (ranker,) = [s for s in result.history if s["node"] == "ranker"]
    assert ranker["decided_by"] == "retrieval-order" and "stopped: " in ranker["reason"]


def test_zero_chain_steps_is_one_retrieval_padded_from_the_question(mini_index: Path) -> None:
    context = IrcotContext(index_dir=str(mini_index), top_k=5, retrieve_k=2, max_chain_steps=0)
    result = ask_ircot(QUESTION, context)
    assert nodes_of(result.history) == ["retriever", "ranker"]
    assert "max_chain_steps=0" in result.history[-1]["reason"]
    assert "3 padded" in result.history[-1]["reason"] and len(result.ranking) == 5
    unpadded = ask_ircot(QUESTION, context.model_copy(update={"pad_ranking": False}))
    assert [r["component_id"] for r in unpadded.ranking] == [
        r["component_id"] for r in result.ranking[:2]
    ]


def test_the_chain_step_limit_ends_the_loop(mini_index: Path) -> None:
    context = IrcotContext(index_dir=str(mini_index), retrieve_k=3, max_chain_steps=1)
    result = ask_ircot(QUESTION, context)
    assert nodes_of(result.history) == ["retriever", "reasoner", "retriever", "ranker"]
    assert "max_chain_steps=1" in result.history[-1]["reason"]


def test_a_retrieval_that_adds_nothing_ends_the_loop(mini_index: Path) -> None:
    everything = IrcotContext(  # dense search returns every component when K exceeds them
        index_dir=str(mini_index), retrieve_k=50, max_chain_steps=4, search_mode="dense"
    )
    result = ask_ircot(QUESTION, everything)
    assert nodes_of(result.history) == ["retriever", "reasoner", "retriever", "ranker"]
    assert result.history[2]["new_components"] == []
    assert "retrieval 1 found nothing new" in result.history[-1]["reason"]


def test_a_checkpointed_run_is_plain_json_and_its_history_only_grows(
    offline_context: IrcotContext,
) -> None:
    saver = InMemorySaver()
    result = ask_ircot(QUESTION, offline_context, thread_id="t", checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    snapshots = list(with_checkpointer(graph, saver).get_state_history(config))[::-1]
    lengths = [len(s.values.get("history", [])) for s in snapshots]
    assert lengths == sorted(lengths) and lengths[-1] == len(result.history)
    json.dumps(snapshots[-1].values)


def test_ask_without_a_checkpointer_reuses_the_module_graph(
    offline_context: IrcotContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_compile(*args, **kwargs):
        raise AssertionError("ask_ircot compiled a graph per call")

    monkeypatch.setattr(StateGraph, "compile", no_compile)
    assert ask_ircot(QUESTION, offline_context).ranking


def test_the_offline_twin_prefers_a_bridge_sentence(
    mini_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = open_index(mini_index)
    question = "Who conducted pioneering research on radioactivity?"  # s0 says that
    birth = ["marie_curie::p0"]  # s1 "She was born in Warsaw" names a linked document
    plain = offline_thought(index, question, birth, set(), {"marie_curie", "warsaw"}, CostMeter())
    assert plain.source == "marie_curie::p0::s0" and "bridge" not in plain.reason
    monkeypatch.setattr(chain, "BRIDGE_BONUS", 10.0)
    covered = offline_thought(index, question, birth, set(), {"marie_curie", "warsaw"}, CostMeter())
    bridged = offline_thought(index, question, birth, set(), {"marie_curie"}, CostMeter())
    assert covered.source == plain.source, "a covered document earns no bonus"
    assert bridged.source == "marie_curie::p0::s1" and "bridge to warsaw" in bridged.reason
    assert bridged.sentence and bridged.sentence.startswith("She was born in Warsaw")


def test_the_offline_twin_never_reuses_a_sentence(mini_index: Path) -> None:
    index = open_index(mini_index)
    first = offline_thought(index, QUESTION, ["warsaw::p0"], set(), set(), CostMeter())
    second = offline_thought(index, QUESTION, ["warsaw::p0"], {first.source}, set(), CostMeter())
    assert first.source and second.source and first.source != second.source
    used = {first.source, second.source}
    done = offline_thought(index, QUESTION, ["warsaw::p0"], used, set(), CostMeter())
    assert done.sentence is None and "no unused sentence" in done.reason
