"""The compiled ReAgent graph offline on the mini bundle with hand-made contradicting evidence.

Covers decomposition, local backtracking (only the affected sub-question re-queried), global
backtracking as a fork in the checkpoint history, the "nothing consistent remains" outcome,
the typed message log and the ablation switches.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from reagent_bundle import MUSEUM_QUESTION, OPENED_1934, OPENED_1967, RENOVATION_QUESTION

from graph_agent.binding import with_checkpointer
from graph_agent.reagent_graph import ask_reagent, build_reagent_graph, graph
from nodes.reagent.assembler import NO_ANSWER
from nodes.reagent.decomposer import offline_decomposition
from state.reagent_state import ReAgentContext, SubQuestion
from tools.corpus_index import open_index

BIRTH_QUESTION = "Where was Marie Curie born?"


def subquestions(*texts: str) -> list[SubQuestion]:
    return [{"index": i, "text": text} for i, text in enumerate(texts)]


def run(context: ReAgentContext, *texts: str, answer: bool = False) -> dict[str, Any]:
    """Run ReAgent with given sub-questions; return the final state and the checkpoints."""
    saver = InMemorySaver()
    context = context.model_copy(update={"answer": answer})
    result = ask_reagent(
        MUSEUM_QUESTION,
        context,
        thread_id="t",
        checkpointer=saver,
        subquestions=subquestions(*texts),
    )
    compiled = with_checkpointer(graph, saver)
    config = {"configurable": {"thread_id": "t"}}
    state = compiled.get_state(config).values
    history = list(compiled.get_state_history(config))
    return {"result": result, "state": state, "history": history}


def steps(state: dict[str, Any], node: str) -> list[dict[str, Any]]:
    return [s for s in state["trace"] if s["node"] == node]


def test_the_graph_has_the_five_agents_and_the_local_backtracking_edge():
    graph = build_reagent_graph().compile().get_graph()
    assert {"decomposer", "retriever", "verifier", "supervisor", "assembler"} <= set(graph.nodes)
    targets = {edge.target for edge in graph.edges if edge.source == "verifier"}
    assert targets == {"retriever", "supervisor"}


def test_offline_decomposition_keeps_the_question_first_then_its_parts(reagent_index_dir):
    index = open_index(reagent_index_dir)
    question = "Which SI unit is named after the physicist who shared the 1903 Nobel Prize?"
    parts = offline_decomposition(index, question, 5)
    assert parts[0] == question
    assert len(parts) >= 2
    assert any("who shared the 1903 Nobel Prize" in part for part in parts[1:])
    assert offline_decomposition(index, question, 1) == [question]


def test_a_decomposed_run_broadcasts_its_sub_questions(context):
    question = "Which SI unit is named after the physicist who shared the 1903 Nobel Prize?"
    result = ask_reagent(question, context.model_copy(update={"max_subqueries": 3}))
    assert result.subqueries[0]["text"] == question
    assert 2 <= len(result.subqueries) <= 3
    assert result.history[0]["node"] == "decomposer"
    assert len(result.ranking) == context.top_k


def test_a_local_conflict_backtracks_and_re_queries_only_that_sub_question(context):
    out = run(context, MUSEUM_QUESTION, BIRTH_QUESTION)
    state = out["state"]
    first_verifier = steps(state, "verifier")[0]
    assert first_verifier["detail"]["verdicts"][f"q0@1:{OPENED_1967}::s0"] == "local-conflict"
    assert first_verifier["detail"]["backtracked"] == ["q0"]
    second_round = steps(state, "retriever")[1]
    assert second_round["detail"]["agents"] == {"q0": "offline"}  # q1 is not re-queried
    assert f"{OPENED_1967}::s0" in state["rejected"]
    held = [a["evidence"][0] for a in state["knowledge"]["q0"]]
    assert OPENED_1934 in held and OPENED_1967 not in held
    assert all(a["step"] == 1 for a in state["knowledge"]["q1"])  # q1 kept its round-1 set
    assert state["local_backtracks"]["q0"][0] == 1


def test_without_backtracking_the_conflict_is_kept_and_nothing_is_re_queried(context):
    out = run(context.model_copy(update={"no_backtracking": True}), MUSEUM_QUESTION, BIRTH_QUESTION)
    state = out["state"]
    assert len(steps(state, "retriever")) == 1
    held = {a["evidence"][0] for a in state["knowledge"]["q0"]}
    assert {OPENED_1934, OPENED_1967} <= held
    assert state["rejected"] == []


def test_backtracking_depth_zero_retracts_without_re_querying(context):
    deep = run(context, MUSEUM_QUESTION, BIRTH_QUESTION)["state"]
    update = {"backtrack_depth": 0}
    shallow = run(context.model_copy(update=update), MUSEUM_QUESTION, BIRTH_QUESTION)["state"]
    assert len(steps(deep, "retriever")) == 2
    assert len(steps(shallow, "retriever")) == 1
    assert f"{OPENED_1967}::s0" in shallow["rejected"]
    assert [a["evidence"][0] for a in shallow["knowledge"]["q0"]] == [OPENED_1934]


def cross_agent(context: ReAgentContext, **update: Any) -> dict[str, Any]:
    one = context.model_copy(update={"assertions_per_agent": 1, **update})
    return run(one, MUSEUM_QUESTION, RENOVATION_QUESTION, answer=True)


def test_a_cross_agent_conflict_rolls_back_by_forking_an_earlier_checkpoint(context):
    out = cross_agent(context)
    state, history = out["state"], out["history"]
    supervisor = steps(state, "supervisor")
    assert supervisor[0]["detail"]["rollback"] is True
    assert set(supervisor[0]["detail"]["conflict_set"]) == {
        f"q0@1:{OPENED_1934}::s0",
        f"q1@1:{OPENED_1967}::s0",
    }
    parents = Counter(
        s.parent_config["configurable"]["checkpoint_id"] for s in history if s.parent_config
    )
    forked = [checkpoint for checkpoint, children in parents.items() if children > 1]
    assert len(forked) == 1  # one global backtrack, one fork
    fork_point = next(s for s in history if s.config["configurable"]["checkpoint_id"] == forked[0])
    assert fork_point.values["step"] == 0 and fork_point.next == ("retriever",)
    assert len({f"{OPENED_1934}::s0", f"{OPENED_1967}::s0"} & set(state["rejected"])) == 1
    assert state["outcome"] == "consistent"
    assert state["rollback"] is None
    json.dumps(state)  # the checkpointed state is plain JSON


def test_every_message_kind_is_logged_in_order(context):
    state = cross_agent(context)["state"]
    kinds = [m["kind"] for m in state["messages"]]
    assert set(kinds) == {"assert", "inform", "reject", "challenge"}
    assert kinds[0] == "assert" and state["messages"][0]["sender"] == "decomposer"
    challenge = next(m for m in state["messages"] if m["kind"] == "challenge")
    assert challenge["sender"] == "supervisor"


def test_without_a_consistent_set_left_the_run_says_so_instead_of_answering(context):
    out = cross_agent(context, max_global_backtracks=0, backtrack_depth=0)
    state = out["state"]
    assert state["outcome"] == "no-consistent-knowledge"
    assert state["answer"] == NO_ANSWER
    assert all(not held for held in state["knowledge"].values())
    assert "no consistent knowledge" in steps(state, "assembler")[0]["reason"]
    assert len(out["result"].ranking) == context.top_k  # the evidence is still ranked


def test_local_only_ablation_retracts_instead_of_forking(context):
    out = cross_agent(context, global_backtracking=False)
    assert steps(out["state"], "supervisor")[0]["detail"]["rollback"] is False
    parents = Counter(
        s.parent_config["configurable"]["checkpoint_id"] for s in out["history"] if s.parent_config
    )
    assert max(parents.values()) == 1  # no fork


def test_one_sub_question_ablation_asks_only_the_question(context):
    result = ask_reagent(
        "Which SI unit is named after the physicist who shared the 1903 Nobel Prize?",
        context.model_copy(update={"max_subqueries": 1}),
    )
    assert len(result.subqueries) == 1
    assert result.cost["llm_calls"] == 0
    assert result.cost["vector_ms"] > 0
