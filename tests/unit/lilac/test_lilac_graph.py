"""The compiled LILaC graph end to end on the tiny index: offline, checkpointed, with a fake LLM."""

from __future__ import annotations

import json
import uuid

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from lilac_bundle import RIVER_OARS, TABLE

from graph_agent.binding import with_checkpointer
from graph_agent.lilac_graph import ask_lilac, build_lilac_graph, graph
from state.lilac_state import LilacContext
from tools.chat_models import register_chat_model

QUESTION = "Which club won the Sparrow Cup in 2002 , and when was that club founded ?"


def test_the_served_graph_runs_decomposer_then_traverser():
    nodes = set(graph.get_graph().nodes)
    assert {"decomposer", "traverser"} <= nodes
    assert set(build_lilac_graph().nodes) == {"decomposer", "traverser"}


def test_an_offline_run_returns_top_k_components_trace_and_cost(offline_context):
    result = ask_lilac(QUESTION, offline_context, thread_id="t-1")
    assert len(result.ranking) == offline_context.top_k
    assert len({r["component_id"] for r in result.ranking}) == offline_context.top_k
    assert [step["node"] for step in result.history] == ["decomposer", "traverser"]
    assert result.history[0]["decided_by"] == "offline"
    assert result.subqueries[0]["text"] == QUESTION
    assert result.thread_id == "t-1"
    assert result.latency_ms > 0
    for key in ("llm_calls", "input_tokens", "output_tokens", "usd", "llm_ms", "vector_ms"):
        assert key in result.cost
    assert result.cost["llm_calls"] == 0
    assert result.answer is None


def test_a_checkpointed_run_can_be_replayed_from_its_history(offline_context):
    saver = InMemorySaver()
    result = ask_lilac(QUESTION, offline_context, thread_id="replay", checkpointer=saver)
    compiled = with_checkpointer(graph, saver)
    config = {"configurable": {"thread_id": "replay"}}
    snapshots = list(compiled.get_state_history(config))
    assert len(snapshots) >= 3
    final = compiled.get_state(config).values
    assert final["ranking"] == result.ranking
    assert len(final["trace"]) == 2
    json.dumps(final)  # the state is plain JSON


def test_checkpointed_runs_reuse_the_compiled_graph(offline_context, monkeypatch):
    from langgraph.graph import StateGraph

    def refuse(self, *args, **kwargs):
        raise AssertionError("the LILaC graph was compiled again")

    monkeypatch.setattr(StateGraph, "compile", refuse)
    saver = InMemorySaver()
    for thread in ("one", "two"):
        ask_lilac(QUESTION, offline_context, thread_id=thread, checkpointer=saver)
    assert {c.config["configurable"]["thread_id"] for c in saver.list(None)} == {"one", "two"}


def test_an_llm_run_uses_the_models_subqueries(lilac_index_dir):
    plan = {
        "subqueries": [
            {"text": "Sparrow Cup 2002 winner Tom Reed club", "modality": "table"},
            {"text": "club founded in 1920", "modality": "text"},
        ]
    }
    usage = {"input_tokens": 50, "output_tokens": 10, "total_tokens": 60}
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content=json.dumps(plan), usage_metadata=usage)])
    )
    spec = register_chat_model(f"lilac-graph-{uuid.uuid4().hex[:8]}", model)
    context = LilacContext(
        index_dir=lilac_index_dir, backend="openai", chat_model=spec, top_k=3, beam_width=10
    )
    result = ask_lilac(QUESTION, context)
    assert result.history[0]["decided_by"] == "llm"
    assert [s["modality"] for s in result.subqueries] == ["table", "text"]
    assert {r["component_id"] for r in result.ranking[:2]} == {TABLE, RIVER_OARS}
    assert result.cost["llm_calls"] == 1
    assert result.cost["input_tokens"] == 50
