"""Scripted-LLM runs of the compiled graph that drive each branch of the FiF loop."""

from __future__ import annotations

from pathlib import Path

from agent_runs import FLAG_QUESTION, NOBEL_QUESTION, Run, llm_context
from scripted_model import ScriptedChatModel, action, plan, ranking, search, selection, verdict

from nodes.fif.rules import LADDER

BIRTHPLACE = "Find the birthplace of Marie Curie"
FLAG = "Find the colours of the flag of that city"
FAIL, OK = verdict("not answerable"), verdict("answerable")
NO_RULE_REPLAN = {"replan_after_failed_anchors": 3}
"""Failures from two anchors would send the evaluator's edge to the planner first."""


def test_one_answerable_hop_stops_the_run(mini_index: Path) -> None:
    model = ScriptedChatModel(
        roles={
            "planner": [plan(NOBEL_QUESTION)],
            "orchestrator": [search(NOBEL_QUESTION)],
            "evaluator": [OK],
            "reranker": [ranking(1, 0)],
        }
    )
    run = Run(NOBEL_QUESTION, llm_context(mini_index, model))
    assert run.route() == ["planner", "orchestrator", "traverser", "evaluator", "reranker"]
    assert model.roles_called() == ["planner", "orchestrator", "evaluator", "reranker"]
    state = run.state
    [record] = state["history"]
    assert record["success"] and record["decided_by"] == "llm" and record["notes"] == []
    assert state["subqueries"][0]["status"] == "answerable"
    assert [r["score"] for r in state["ranking"][:3]] == [0.9, 0.9, 0.0]
    assert {r["component_id"] for r in state["ranking"]} <= set(state["candidates"])
    assert (state["cost"]["llm_calls"], state["cost"]["input_tokens"]) == (4, 400)


def test_failures_escalate_through_every_rung_in_ladder_order(mini_index: Path) -> None:
    model = ScriptedChatModel(
        roles={"planner": [plan(BIRTHPLACE, FLAG)], "orchestrator": [search(BIRTHPLACE)],
               "evaluator": [OK]},
        defaults={
            # a naive model keeps asking for the cheapest hop; the rules climb the ladder
            "orchestrator": search(FLAG, doc="neighbors", anchor=0),
            "evaluator": FAIL,
            "select": selection(0),
            "reranker": ranking(),
        },
    )  # fmt: skip
    run = Run(FLAG_QUESTION, llm_context(mini_index, model, **NO_RULE_REPLAN))
    history = run.state["history"]
    flag_steps = [h for h in history if h["subquery_index"] == 1]
    assert [h["strategy"] for h in flag_steps] == list(LADDER)
    assert [h["anchor"] for h in flag_steps] == [0, None, None, None, None, None]
    assert not any(h["success"] for h in flag_steps)
    last = run.state["decisions"][-1]
    assert last["kind"] == "stop" and "no allowed route left" in last["reason"]
    assert run.route()[-2:] == ["orchestrator", "reranker"]
    assert model.roles_called().count("select") == 3  # rung 4 selects components, rung 5 both


def test_a_proposed_route_that_already_failed_is_changed_by_the_rules(mini_index: Path) -> None:
    model = ScriptedChatModel(
        roles={
            "planner": [plan(FLAG_QUESTION)],
            "orchestrator": [search(FLAG_QUESTION), search(FLAG_QUESTION), action("stop")],
            "evaluator": [FAIL, FAIL],
        },
        defaults={"reranker": ranking()},
    )
    state = Run(FLAG_QUESTION, llm_context(mini_index, model)).state
    first, second = state["history"]
    assert first["strategy"] == LADDER[1] and second["strategy"] == LADDER[2]
    repeated = state["decisions"][1]
    assert repeated["decided_by"] == "llm" and "rules changed" in repeated["reason"]
    assert state["decisions"][2]["kind"] == "stop"


def test_backtracking_re_anchors_to_an_earlier_success_with_a_rewrite(mini_index: Path) -> None:
    rewritten = "Find the colours of the banner"  # words no page reached from step 0 holds
    model = ScriptedChatModel(
        roles={
            "planner": [plan(BIRTHPLACE, FLAG)],
            "orchestrator": [
                search(BIRTHPLACE),
                search(FLAG, doc="neighbors", anchor=0),
                search(FLAG),
                search(rewritten, doc="neighbors", anchor=0),  # back to step 0, new wording
            ],
            "evaluator": [OK, FAIL, FAIL, OK],
        },
        defaults={"reranker": ranking(), "orchestrator": action("stop")},
    )
    run = Run(FLAG_QUESTION, llm_context(mini_index, model, **NO_RULE_REPLAN))
    state = run.state
    # the model's last "answerable" is refused: the pages the hop reaches (linked from or to
    # Curie's) and its anchor share no word with the rewrite, so the offline judge decides
    assert [(h["subquery_index"], h["anchor"], h["success"]) for h in state["history"]] == [
        (0, None, True),
        (1, 0, False),
        (1, None, False),
        (2, 0, False),
    ]
    assert "no component shares a content word" in state["fallbacks"][-1]
    assert state["history"][3]["strategy"] == LADDER[0]
    assert state["subqueries"][1]["text"] == FLAG  # the parent stays in the plan
    assert state["subqueries"][2] == {
        "index": 2,
        "text": rewritten,
        "status": "unknown",
        "answer": None,
        "origin": "rewrite",
        "parent": 1,
    }
    assert run.route()[-3:] == ["evaluator", "orchestrator", "reranker"]


def test_a_replan_appends_subqueries_and_never_overwrites(mini_index: Path) -> None:
    warsaw = "Find the flag of Warsaw"
    model = ScriptedChatModel(
        roles={
            "planner": [plan(FLAG_QUESTION)],
            "replanner": [plan(warsaw, FLAG_QUESTION)],  # a repeated task is dropped
            "orchestrator": [search(FLAG_QUESTION), action("replan"), search(warsaw),
                             action("stop")],
            "evaluator": [FAIL, OK],
        },
        defaults={"reranker": ranking()},
    )  # fmt: skip
    run = Run(FLAG_QUESTION, llm_context(mini_index, model))
    assert run.route() == [
        "planner", "orchestrator", "traverser", "evaluator", "orchestrator", "planner",
        "orchestrator", "traverser", "evaluator", "orchestrator", "reranker",
    ]  # fmt: skip
    subqueries = run.state["subqueries"]
    assert [(s["text"], s["origin"], s["status"]) for s in subqueries] == [
        (FLAG_QUESTION, "initial", "not answerable"),
        (warsaw, "replan", "answerable"),
    ]
    texts = [[s["text"] for s in snap.values.get("subqueries", [])] for snap in run.snapshots()]
    for earlier, later in zip(texts, texts[1:], strict=False):
        assert later[: len(earlier)] == earlier
    [replan_prompt] = model.sent("replanner")
    assert "Failure" in replan_prompt[1].content and FLAG_QUESTION in replan_prompt[1].content
    replans = [d for d in run.state["decisions"] if d["kind"] == "replan"]
    assert [d["decided_by"] for d in replans] == ["llm"]  # the planner adds no second record


def test_failures_from_two_anchors_replan_through_the_evaluators_edge(mini_index: Path) -> None:
    warsaw = "Find the flag of Warsaw"
    model = ScriptedChatModel(
        roles={
            "planner": [plan(BIRTHPLACE, FLAG)],
            "replanner": [plan(warsaw)],
            # the model never asks for a replan: the rules' edge does
            "orchestrator": [search(BIRTHPLACE), search(FLAG, doc="neighbors", anchor=0),
                             search(FLAG), search(warsaw), action("stop")],
            "evaluator": [OK, FAIL, FAIL, OK],
        },
        defaults={"reranker": ranking()},
    )  # fmt: skip
    run = Run(FLAG_QUESTION, llm_context(mini_index, model))
    assert run.route() == [
        "planner", "orchestrator", "traverser", "evaluator",  # birthplace: answered
        "orchestrator", "traverser", "evaluator",  # flag from step 0's links: failed
        "orchestrator", "traverser", "evaluator",  # flag by a global hop: failed
        "planner",  # two distinct anchors failed: the edge replans, no orchestrator call
        "orchestrator", "traverser", "evaluator", "orchestrator", "reranker",
    ]  # fmt: skip
    assert model.roles_called().count("orchestrator") == 5
    state = run.state
    assert [(h["subquery_index"], h["anchor"], h["success"]) for h in state["history"]] == [
        (0, None, True), (1, 0, False), (1, None, False), (2, None, True),
    ]  # fmt: skip
    assert [(s["text"], s["origin"]) for s in state["subqueries"]][2] == (warsaw, "replan")
    kinds = [(d["kind"], d["decided_by"]) for d in state["decisions"]]
    assert kinds[3] == ("replan", "rules") and kinds.count(("replan", "rules")) == 1
    assert state["decisions"][3]["reason"] == "subquery 1 failed from several anchors"


def test_the_step_budget_stops_the_run(mini_index: Path) -> None:
    model = ScriptedChatModel(
        roles={"planner": [plan(FLAG_QUESTION)]},
        defaults={"orchestrator": search(FLAG_QUESTION), "evaluator": FAIL, "reranker": ranking()},
    )
    run = Run(FLAG_QUESTION, llm_context(mini_index, model, max_steps=2))
    assert len(run.state["history"]) == 2
    assert model.roles_called().count("orchestrator") == 2
    assert run.route()[-2:] == ["evaluator", "reranker"]


def test_the_llm_call_budget_falls_back_offline_and_stops(mini_index: Path) -> None:
    model = ScriptedChatModel(
        roles={"planner": [plan(FLAG_QUESTION)]},
        defaults={"orchestrator": search(FLAG_QUESTION), "evaluator": FAIL, "reranker": ranking()},
    )
    run = Run(FLAG_QUESTION, llm_context(mini_index, model, max_llm_calls=4))
    state = run.state
    assert model.roles_called() == ["planner", "orchestrator", "evaluator", "orchestrator"]
    assert state["cost"]["llm_calls"] == 4
    assert "evaluator: offline-fallback (LLM budget used up)" in state["history"][-1]["notes"]
    assert run.route()[-2:] == ["evaluator", "reranker"] and state["ranking"]
