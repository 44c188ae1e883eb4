"""MMAPG's answerer node: build an Answer node from its parent nodes (seed 003, §3.3)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate, decision_record
from nodes.core.reasoning import fallbacks_of
from nodes.mmapg.answering import answer
from nodes.mmapg.graph_view import llm_budget_left
from nodes.mmapg.prompts import ANSWER_VERSION
from state.mmapg_state import MMAPGContext, MMAPGState, MMAPGStep, PlanNode
from tools.corpus_index import open_index
from tools.cost import CostMeter


class AnswererUpdate(DecisionUpdate, total=False):
    """The keys the answerer writes."""

    nodes: list[PlanNode]
    trace: list[MMAPGStep]


def answerer(state: MMAPGState, runtime: Runtime[MMAPGContext]) -> AnswererUpdate:
    """Answer the planned question from the Answer node's parents and add the node."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    action = next((a for a in state["pending"] if a["type"] == "answer"), None)
    if action is None:
        raise ValueError(f"answerer reached without a planned Answer node: {state['pending']}")
    by_id = {node["id"]: node for node in state["nodes"]}
    parents = [by_id[p] for p in action["parents"] if p in by_id]
    allowed = llm_budget_left(state, context.max_llm_calls, context.max_tokens)
    decided = answer(
        index, state["question"], action["instruction"], parents, context, meter, allowed
    )
    node: PlanNode = {
        "id": action["id"],
        "type": "answer",
        "parents": action["parents"],
        "instruction": action["instruction"],
        "content": decided.value,
        "status": "answered",
        "found": [],
        "others": [],
        "detail": {},
        "decided_by": decided.decided_by,
    }
    reason = f"node {node['id']} answered from nodes {action['parents']}"
    step = decision_record("answerer", decided.decided_by, reason, ANSWER_VERSION, node=node["id"])
    return {
        "nodes": [node],
        "trace": [step],
        "cost": meter.as_dict(),
        **fallbacks_of("answerer", decided),
    }
