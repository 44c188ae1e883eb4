"""The planner node: decompose Q into 1–5 subqueries, and on replan append 1–2 new ones."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.guards import ungrounded
from nodes.core.question import analyze_question
from nodes.core.reasoning import decide, fallbacks_of
from nodes.fif.fusion import prefetch_plan
from nodes.fif.orchestrator import serialize_memory, serialize_subqueries
from nodes.fif.plan_heuristics import decompose, replan
from nodes.fif.policy import replan_action
from nodes.fif.prompts import PLANNER_SYSTEM, PLANNER_USER, REPLANNER_SYSTEM, REPLANNER_USER
from nodes.fif.schemas import PlannedTasks
from state.fif_context import FiFContext
from state.fif_state import Action, FiFState, Subquery, SubqueryOrigin
from state.views import last_subquery_index
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter

MAX_REPLAN_TASKS = 2


class PlannerUpdate(DecisionUpdate, total=False):
    """Keys the planner writes."""

    analysis: dict[str, Any]
    subqueries: list[Subquery]
    decisions: list[Action]


def planner(state: FiFState, runtime: Runtime[FiFContext]) -> PlannerUpdate:
    """Write the initial plan, or extend it when a replan was asked for.

    The orchestrator records the replans it decides; a replan the evaluator's edge asked
    for (`routing.after_evaluator`) is recorded here, so the replan views count both.
    """
    context = runtime.context or FiFContext()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    if not state.get("subqueries"):
        return _initial_plan(state, context, index, meter)
    if context.no_planner:
        return {"cost": meter.as_dict()}
    existing = state["subqueries"]
    question = state["question"]
    user = REPLANNER_USER.format(
        question=question,
        subqueries=serialize_subqueries(existing),
        memory=serialize_memory(index, state) or "(empty)",
    )
    decided = decide(
        state,
        context,
        meter,
        lambda caller: caller.call(PlannedTasks, REPLANNER_SYSTEM, user, meter).tasks,
        lambda: replan(index, question, state.get("history", [])),
        [lambda tasks: ungrounded(tasks, [question, user])],  # new words may come from memory
    )
    known = {s["text"].strip().lower() for s in existing}
    fresh = [t for t in decided.value if t.strip().lower() not in known][:MAX_REPLAN_TASKS]
    return {
        "subqueries": _subqueries(fresh, len(existing), "replan"),
        "cost": meter.as_dict(),
        **_edge_replan(state),
        **fallbacks_of("planner", decided),
    }


class EdgeReplan(TypedDict, total=False):
    """The decision record of a replan that no orchestrator decision asked for."""

    decisions: list[Action]


def _edge_replan(state: FiFState) -> EdgeReplan:
    """Record a replan the evaluator's edge asked for; the orchestrator records its own."""
    asked = state.get("next_action")
    if asked is not None and asked["kind"] == "replan":
        return {}
    worked_on = last_subquery_index(state)
    return {"decisions": [replan_action(f"subquery {worked_on} failed from several anchors")]}


def _initial_plan(
    state: FiFState, context: FiFContext, index: CorpusIndex, meter: CostMeter
) -> PlannerUpdate:
    question = state["question"]
    index.prefetch_queries([question])  # embedded while the question is decomposed
    analysis = analyze_question(question).as_state()
    if context.no_planner:
        prefetch_plan(index, question, [question])
        return {
            "analysis": analysis,
            "subqueries": _subqueries([question], 0, "initial"),
            "cost": meter.as_dict(),
        }
    decided = decide(
        state,
        context,
        meter,
        lambda caller: (
            caller.call(
                PlannedTasks, PLANNER_SYSTEM, PLANNER_USER.format(question=question), meter
            ).tasks
        ),
        lambda: decompose(index, question, context.max_subqueries),
        [lambda tasks: ungrounded(tasks, [question])],
    )
    tasks = decided.value[: context.max_subqueries]
    prefetch_plan(index, question, tasks)
    return {
        "analysis": analysis,
        "subqueries": _subqueries(tasks, 0, "initial"),
        "cost": meter.as_dict(),
        **fallbacks_of("planner", decided),
    }


def _subqueries(tasks: list[str], start: int, origin: SubqueryOrigin) -> list[Subquery]:
    return [
        {"index": start + i, "text": task, "status": "unknown", "answer": None, "origin": origin}
        for i, task in enumerate(tasks)
    ]
