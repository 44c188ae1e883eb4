"""The offline planner rule, one case per row of its precedence list (nodes/mmapg/rules.py)."""

from __future__ import annotations

from mmapg_nodes import evidence, node, question, retrieval

from nodes.mmapg.rules import RuleInputs, offline_next

Q = "What colours are the stripes on the flag of the city where Marie Curie was born?"
NO_PLAN = RuleInputs(sub_questions=[Q], max_bridges=2)


def kinds_and_parents(actions):
    return [(a["type"], a["parents"]) for a in actions]


def test_the_plans_sub_questions_become_question_nodes_first(index):
    inputs = RuleInputs(
        sub_questions=[Q, "Where was Marie Curie born?", "Flag of Warsaw"], max_bridges=2
    )
    actions = offline_next(index, [question(0, Q)], inputs)
    assert kinds_and_parents(actions) == [("question", [0]), ("question", [0])]
    assert [a["id"] for a in actions] == [1, 2]
    assert actions[0]["instruction"] == "Where was Marie Curie born?"


def test_every_open_question_gets_its_own_retrieval_node_at_once(index):
    nodes = [
        question(0, Q),
        question(1, "Where was Marie Curie born?", [0]),
        question(2, "Flag of Warsaw", [0]),
    ]
    actions = offline_next(index, nodes, NO_PLAN)
    assert kinds_and_parents(actions) == [
        ("retrieval", [0]),
        ("retrieval", [1]),
        ("retrieval", [2]),
    ]
    assert [a["instruction"] for a in actions] == [
        Q,
        "Where was Marie Curie born?",
        "Flag of Warsaw",
    ]


def test_a_no_result_node_stays_and_a_retry_grows_from_it(index):
    nodes = [question(0, Q), retrieval(1, 0, Q)]
    [retry] = offline_next(index, nodes, NO_PLAN)
    assert retry["type"] == "retrieval" and retry["parents"] == [1]
    assert retry["instruction"] == "colours stripes flag city marie curie born"
    assert "found nothing" in retry["reason"]


def test_a_chain_of_failures_is_given_up_after_one_retry(index):
    nodes = [question(0, Q), retrieval(1, 0, Q), retrieval(2, 1, "colours stripes flag")]
    [stop] = offline_next(index, nodes, NO_PLAN)
    assert stop["type"] == "stop" and stop["parents"] == [2]


def test_a_found_node_naming_a_bridge_entity_grows_a_follow_up(index):
    found = [evidence("marie_curie::p0", 0.6, "marie_curie::p0::s1")]
    nodes = [question(0, Q), retrieval(1, 0, Q, found)]
    [follow_up] = offline_next(index, nodes, NO_PLAN)
    assert follow_up["type"] == "retrieval" and follow_up["parents"] == [1]
    assert follow_up["instruction"] == f"Warsaw: {Q}"
    assert "bridge entity 'Warsaw'" in follow_up["reason"]


def test_no_follow_up_to_a_document_already_found_or_past_two_hops(index):
    found = [evidence("marie_curie::p0", 0.6)]
    warsaw = [evidence("warsaw::p0", 0.5)]
    already = [question(0, Q), retrieval(1, 0, Q, found), retrieval(2, 0, "x", warsaw)]
    assert offline_next(index, already, NO_PLAN)[0]["type"] == "answer"
    polonium = [evidence("polonium::p1", 0.5)]  # links nowhere: node 1 grows nothing
    deep = [question(0, Q), retrieval(1, 0, Q, polonium), retrieval(2, 1, "y", found)]
    assert offline_next(index, deep, NO_PLAN)[0]["type"] == "answer"  # node 2 is a second hop
    shallow = [question(0, Q), retrieval(1, 0, Q, polonium), retrieval(2, 0, "y", found)]
    assert offline_next(index, shallow, NO_PLAN)[0]["parents"] == [2]


def test_answer_needs_a_found_node_under_every_question(index):
    hit = [evidence("warsaw::i0", 0.5)]
    questions = [question(0, Q), question(1, "a", [0]), question(2, "b", [0])]
    nodes = [
        *questions,
        retrieval(3, 1, "a", hit),
        retrieval(4, 2, "b", hit),
        retrieval(5, 0, Q, hit),
    ]
    [answer] = offline_next(index, nodes, RuleInputs([Q], max_bridges=0))
    assert answer["type"] == "answer" and answer["parents"] == [3, 4, 5]
    failed = [*nodes[:4], retrieval(4, 2, "b"), retrieval(5, 0, Q, hit), retrieval(6, 4, "b")]
    assert offline_next(index, failed, RuleInputs([Q], max_bridges=0))[0]["type"] == "stop"


def test_stop_follows_an_answer(index):
    nodes = [
        question(0, Q),
        retrieval(1, 0, Q, [evidence("warsaw::i0", 0.5)]),
        node(2, "answer", [1], "x", "answered"),
    ]
    [stop] = offline_next(index, nodes, NO_PLAN)
    assert stop == {**stop, "type": "stop", "parents": [2], "id": 3}
