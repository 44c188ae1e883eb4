"""MMAPG's plan writer node: the overall plan P_plan and the graph's root (seed 003, §3.3).

Before the graph grows, the question is broken into the pieces of information it needs
(the plan the planner consults at every step). Offline, FiF's planner heuristic stands in
(`nodes.fif.plan_heuristics.decompose`: one sub-question per entity the question names when it
compares or coordinates them, else the question alone). The graph starts as V = {Q}.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate, decision_record
from nodes.core.guards import ungrounded
from nodes.core.reasoning import Decided, decide_within, fallbacks_of
from nodes.fif.plan_heuristics import decompose
from nodes.mmapg.graph_view import llm_budget_left
from nodes.mmapg.prompts import PLAN_SYSTEM, PLAN_USER, PLAN_VERSION
from nodes.mmapg.schemas import MAX_SUBQUESTIONS, OverallPlanReply
from state.mmapg_state import MMAPGContext, MMAPGState, MMAPGStep, OverallPlan, PlanNode
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

OFFLINE_GUIDE = (
    "Retrieve evidence for each sub-question; follow the entities the evidence names to "
    "what the question asks about them; answer once every sub-question has evidence."
)
"""The offline plan's text: the order the offline planner rule works in."""


class PlanWriterUpdate(DecisionUpdate, total=False):
    """The keys the plan writer writes."""

    plan: OverallPlan
    nodes: list[PlanNode]
    trace: list[MMAPGStep]


def root_node(question: str) -> PlanNode:
    """Return the planning graph's first node: the question itself."""
    return {
        "id": 0,
        "type": "question",
        "parents": [],
        "instruction": question,
        "content": question,
        "status": "open",
        "found": [],
        "others": [],
        "detail": {},
        "decided_by": "input",
    }


def overall_plan(state: MMAPGState, context: MMAPGContext, meter: CostMeter) -> Decided:
    """Return (sub-questions, plan text) from the model, or from FiF's offline decomposition."""
    question = state["question"]
    limit = min(context.max_subqueries, MAX_SUBQUESTIONS)

    def with_llm(caller: StructuredCaller) -> tuple[list[str], str]:
        system = PLAN_SYSTEM.format(max_subquestions=limit)
        reply = caller.call(OverallPlanReply, system, PLAN_USER.format(question=question), meter)
        return reply.sub_questions[:limit], reply.plan

    def offline() -> tuple[list[str], str]:
        index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
        return decompose(index, question, limit), OFFLINE_GUIDE

    allowed = llm_budget_left(state, context.max_llm_calls, context.max_tokens)
    checks = [lambda plan: ungrounded(plan[0], [question], "sub-question")]
    return decide_within(allowed, context, meter, with_llm, offline, checks)


def plan_writer(state: MMAPGState, runtime: Runtime[MMAPGContext]) -> PlanWriterUpdate:
    """Write the overall plan and start the graph with the question node."""
    meter = CostMeter()
    decided = overall_plan(state, runtime.context, meter)
    sub_questions, text = decided.value
    plan: OverallPlan = {
        "sub_questions": sub_questions,
        "text": text,
        "decided_by": decided.decided_by,
    }
    reason = f"{len(sub_questions)} sub-questions"
    step = decision_record(
        "plan_writer", decided.decided_by, reason, PLAN_VERSION, sub_questions=sub_questions
    )
    return {
        "plan": plan,
        "nodes": [root_node(state["question"])],
        "trace": [step],
        "cost": meter.as_dict(),
        **fallbacks_of("plan_writer", decided),
    }
