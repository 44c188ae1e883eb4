"""The traverser node: run TRAVERSE for the orchestrator's search action, remember what it found."""

from __future__ import annotations

from typing import TypedDict

from langgraph.runtime import Runtime

from nodes.reasoning import Decided
from nodes.selection import make_selector
from nodes.traversal import anchor_region, component_stage, document_stage
from state.context import Context
from state.fif_state import Candidate, FiFState, StepRecord
from tools.corpus_index import open_index
from tools.cost import CostMeter


class TraverserUpdate(TypedDict, total=False):
    """Keys the traverser writes."""

    pending_step: StepRecord
    candidates: dict[str, Candidate]
    cost: dict[str, float]


def traverser(state: FiFState, runtime: Runtime[Context]) -> TraverserUpdate:
    """Execute one hop: document stage, then component stage, from the chosen anchor."""
    context = runtime.context or Context()
    action = state.get("next_action")
    if not action or action["kind"] != "search":
        raise ValueError(f"traverser needs a search action, got {action!r}")
    index = open_index(context.index_dir, context.chroma_url)
    meter = CostMeter()
    history = state.get("history", [])
    subquery, strategy, anchor = action["subquery"], action["strategy"], action.get("anchor")
    with meter.timed("embedding"):
        vector = index.embed_query(subquery)
    notes: list[Decided] = []
    select = make_selector(index, state, context, subquery, strategy["granularity"], meter, notes)
    region = anchor_region(history, anchor)
    documents, hop = document_stage(index, subquery, vector, strategy, region,
                                    context.docs_per_hop, context.shortlist_k, select, meter)
    components = component_stage(
        index,
        vector,
        strategy,
        documents,
        hop,
        context.components_per_hop,
        context.shortlist_k,
        select,
        meter,
    )
    step_number = len(history)
    step: StepRecord = {
        "step": step_number,
        "subquery_index": action["subquery_index"],
        "subquery": subquery,
        "strategy": strategy,
        "anchor": anchor,
        "documents": documents,
        "components": components,
        "success": False,
        "answerable": False,
        "reason": "",
        "decided_by": action["decided_by"],
        "notes": [
            f"selection: {n.decided_by}" + (f" ({n.note})" if n.note else "")
            for n in notes
            if n.decided_by == "offline-fallback"
        ],
        "cost": meter.as_dict(),
    }
    candidates: dict[str, Candidate] = {
        c["id"]: {
            "component_id": c["id"],
            "doc_id": c["doc_id"],
            "kind": c["kind"],
            "score": c["score"],
            "step": step_number,
            "via": c.get("via", ""),
        }
        for c in components
    }
    return {"pending_step": step, "candidates": candidates, "cost": meter.as_dict()}
