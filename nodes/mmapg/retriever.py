"""MMAPG's retriever node: build one Retrieval node of the planning graph (seed 003, §3.4).

Each Retrieval node the planner decides on arrives here through its own `Send`, so
independent retrievals run in parallel; the node's id was fixed by the planner, so the
branches never collide.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate, decision_record
from nodes.core.reasoning import Decided, fallbacks_of
from nodes.mmapg.retrieval import NO_RESULT, Retrieved, retrieve
from state.mmapg_state import MMAPGContext, MMAPGStep, PlanNode, RetrieverInput
from tools.corpus_index import open_index
from tools.cost import CostMeter

OTHERS_KEPT = 20
"""Candidates not kept that a node still records (the ranking's tail draws on them)."""


class RetrieverUpdate(DecisionUpdate, total=False):
    """The keys the retriever writes."""

    nodes: list[PlanNode]
    trace: list[MMAPGStep]


def decided_by(decisions: Sequence[Decided]) -> str:
    """Summarise who decided a node's steps: llm, offline, or offline-fallback if any fell back."""
    kinds = {d.decided_by for d in decisions}
    if "offline-fallback" in kinds:
        return "offline-fallback"
    return "llm" if kinds == {"llm"} else "offline"


def retrieval_node(state: RetrieverInput, found: Retrieved, context: MMAPGContext) -> PlanNode:
    """Build the Retrieval node record from what the retrieval module returned."""
    action = state["action"]
    return {
        "id": action["id"],
        "type": "retrieval",
        "parents": list(action["parents"]),
        "instruction": action["instruction"],
        "content": found.summary if found.kept else NO_RESULT,
        "status": "found" if found.kept else "no_result",
        "found": found.kept,
        "others": found.others[:OTHERS_KEPT],
        "detail": {
            **found.split.as_detail(),
            "pools": found.pools,
            "text_kb": found.text_kb,
            "radii": {"text": context.text_radius, "image": context.image_radius},
            "fixed_top_k": context.fixed_top_k,
        },
        "decided_by": decided_by(found.decisions),
    }


def retriever(state: RetrieverInput, runtime: Runtime[MMAPGContext]) -> RetrieverUpdate:
    """Run the retrieval module for one planned Retrieval node and add the node."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    action = state["action"]
    found = retrieve(
        index, action["instruction"], state["parents"], context, meter, state["llm_allowed"]
    )
    node = retrieval_node(state, found, context)
    reason = (
        f"node {node['id']}: {len(found.kept)} kept of "
        f"{len(found.kept) + len(found.others)} retrieved ({node['status']})"
    )
    detail = {"node": node["id"], "image_mode": found.split.image_mode, "pools": found.pools}
    step = decision_record("retriever", node["decided_by"], reason, None, **detail)
    return {
        "nodes": [node],
        "trace": [step],
        "cost": meter.as_dict(),
        **fallbacks_of("retriever", *found.decisions),
    }
