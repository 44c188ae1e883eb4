"""The traverser node: run TRAVERSE for the orchestrator's search action, remember what it found."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.reasoning import Decided, fallbacks_of
from nodes.fif.selection import make_selector
from nodes.fif.traversal import Traversal, anchor_region, component_stage, document_stage
from state.fif_context import FiFContext
from state.fif_state import Action, Candidate, FiFState, Found, StepRecord
from tools.corpus_index import open_index
from tools.cost import CostMeter


class TraverserUpdate(DecisionUpdate, total=False):
    """Keys the traverser writes."""

    pending_step: StepRecord
    candidates: dict[str, Candidate]


def traverser(state: FiFState, runtime: Runtime[FiFContext]) -> TraverserUpdate:
    """Execute one hop: document stage, then component stage, from the chosen anchor."""
    context = runtime.context or FiFContext()
    action = state.get("next_action")
    if not action or action["kind"] != "search":
        raise ValueError(f"traverser needs a search action, got {action!r}")
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    history = state.get("history", [])
    subquery, strategy, anchor = action["subquery"], action["strategy"], action.get("anchor")
    with meter.timed("embedding"):
        vector = index.embed_query(subquery)
    notes: list[Decided] = []
    select = make_selector(index, state, context, subquery, strategy["granularity"], meter, notes)
    region = anchor_region(history, anchor)
    traversal = Traversal(
        index,
        subquery,
        vector,
        strategy,
        select,
        meter,
        context.tuning,
        keep_docs=context.docs_per_hop,
        keep_components=context.components_per_hop,
        shortlist=context.shortlist_k,
    )
    documents, hop = document_stage(traversal, region)
    components = component_stage(traversal, documents, hop)
    step = pending_record(len(history), action, documents, components, notes, meter)
    candidates = {c["id"]: as_candidate(c, step["step"]) for c in components}
    return {
        "pending_step": step,
        "candidates": candidates,
        "cost": meter.as_dict(),
        **fallbacks_of(f"traverser (step {step['step']})", *notes),
    }


def pending_record(
    number: int,
    action: Action,
    documents: list[Found],
    components: list[Found],
    notes: list[Decided],
    meter: CostMeter,
) -> StepRecord:
    """Return the step record of a traversal, awaiting the evaluator's verdict."""
    return {
        "step": number,
        "subquery_index": action["subquery_index"],
        "subquery": action["subquery"],
        "strategy": action["strategy"],
        "anchor": action.get("anchor"),
        "documents": documents,
        "components": components,
        "success": False,
        "answerable": False,
        "reason": "",
        "decided_by": action["decided_by"],
        "notes": [
            f"selection: {n.decided_by} ({n.note})"
            for n in notes
            if n.decided_by == "offline-fallback"
        ],
        "cost": meter.as_dict(),
    }


def as_candidate(found: Found, step: int) -> Candidate:
    """Return the memory record of a found component."""
    return {
        "component_id": found["id"],
        "doc_id": found["doc_id"],
        "kind": found["kind"],
        "score": found["score"],
        "step": step,
        "via": found.get("via", ""),
    }
