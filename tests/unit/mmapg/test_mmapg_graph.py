"""The compiled MMAPG graph end to end, offline, on the mini index."""

from __future__ import annotations

import json

from langgraph.checkpoint.memory import InMemorySaver
from mmapg_nodes import evidence

from graph_agent.binding import with_checkpointer
from graph_agent.mmapg_graph import ask_mmapg, build_mmapg_graph, graph
from nodes.mmapg.ranking import interleaved

BECQUEREL = (
    "Which SI unit is named after the physicist who shared the 1903 Nobel Prize in Physics "
    "with the Curies?"
)
POLONIUM = "What is the atomic number of the element named after Marie Curie's native country?"


def run(question, context, thread):
    saver = InMemorySaver()
    result = ask_mmapg(question, context, thread_id=thread, checkpointer=saver)
    config = {"configurable": {"thread_id": thread}}
    compiled = with_checkpointer(graph, saver)
    return result, compiled.get_state(config).values, list(compiled.get_state_history(config))


def shape(nodes):
    return [(n["id"], n["type"], n["parents"], n["status"]) for n in nodes]


def test_the_served_graph_has_the_five_nodes():
    assert set(build_mmapg_graph().nodes) == {
        "plan_writer",
        "planner",
        "retriever",
        "answerer",
        "finisher",
    }
    drawn = graph.get_graph()
    assert {("planner", "retriever"), ("retriever", "planner"), ("planner", "finisher")} <= {
        (e.source, e.target) for e in drawn.edges
    }


def test_an_offline_run_grows_the_graph_and_follows_bridges_in_parallel(mmapg_context):
    result, state, history = run(BECQUEREL, mmapg_context, "bridge")
    assert shape(state["nodes"]) == [
        (0, "question", [], "open"),
        (1, "retrieval", [0], "found"),
        (2, "retrieval", [1], "found"),
        (3, "retrieval", [1], "found"),
        (4, "answer", [1, 2, 3], "answered"),
        (5, "stop", [4], "stopped"),
    ]
    assert [n["instruction"].split(":")[0] for n in state["nodes"][2:4]] == [
        "Marie Curie",
        "Pierre Curie",
    ]
    parallel = [s for s in history if s.next == ("retriever", "retriever")]
    assert len(parallel) == 1  # both follow-ups ran in one super-step, one Send each
    assert [step["node"] for step in result.history].count("retriever") == 3
    assert result.ranking[0]["component_id"] == "henri_becquerel::p1"
    assert result.answer and "becquerel" in result.answer.lower()
    assert "n1 --> n2" in state["graph_text"] and "n1 --> n3" in state["graph_text"]
    assert result.history[-1]["detail"]["graph"] == state["graph_text"]
    json.dumps(state)  # the state stays plain JSON


def test_a_failed_retrieval_stays_and_the_graph_grows_from_it(mmapg_context):
    _, state, _ = run(POLONIUM, mmapg_context, "retry")
    first, retry = state["nodes"][1], state["nodes"][2]
    assert (first["type"], first["status"], first["content"]) == (
        "retrieval",
        "no_result",
        "no result",
    )
    assert retry["parents"] == [1] and retry["status"] == "found"
    assert retry["found"][0]["component_id"] == "polonium::p0"
    assert first["others"]  # what it retrieved but did not keep stays on record


def test_the_iteration_cap_stops_the_run(mmapg_context):
    capped = mmapg_context.model_copy(update={"max_iterations": 2})
    result, state, _ = run(BECQUEREL, capped, "cap")
    assert shape(state["nodes"]) == [
        (0, "question", [], "open"),
        (1, "retrieval", [0], "found"),
        (2, "stop", [1], "stopped"),
    ]
    planner_steps = [s for s in result.history if s["node"] == "planner"]
    assert len(planner_steps) == 2 and planner_steps[-1]["reason"] == "iteration cap reached"
    assert result.ranking  # what was found before the cap is still ranked


def test_the_ranking_takes_each_retrieval_nodes_finds_in_turn():
    first = [evidence("a::p0", 0.9), evidence("a::p1", 0.8), evidence("a::p2", 0.7)]
    second = [evidence("b::p0", 0.4)]
    order = [item["component_id"] for item in interleaved([first, second])]
    assert order == ["a::p0", "b::p0", "a::p1", "a::p2"]


def test_cost_and_trace_are_reported(mmapg_context):
    result = ask_mmapg(BECQUEREL, mmapg_context)
    assert result.cost["llm_calls"] == 0 and result.cost["vector_ms"] > 0
    assert result.cost["embedding_ms"] > 0
    assert result.history[0]["node"] == "plan_writer" and result.subqueries[0]["text"] == BECQUEREL
    assert all(step["decided_by"] in {"offline", "graph"} for step in result.history)


def test_the_single_path_ablation_builds_each_node_on_the_previous_one(mmapg_context):
    single = mmapg_context.model_copy(update={"single_path": True})
    _, state, history = run(BECQUEREL, single, "single")
    nodes = state["nodes"]
    assert all(node["parents"] == [node["id"] - 1] for node in nodes[1:])
    assert [n["type"] for n in nodes] == ["question", "retrieval", "retrieval", "answer", "stop"]
    assert not [s for s in history if s.next == ("retriever", "retriever")]
