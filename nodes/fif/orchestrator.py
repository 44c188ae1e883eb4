"""The orchestrator node: choose search / replan / stop, the subquery, strategy and anchor.

The LLM (when configured) proposes an action from the serialised memory; the rule
orchestrator is its offline twin. Either way the action passes `policy.enforce`, the
same rules the graph's edges use.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.prompts import as_data
from nodes.core.reasoning import decide, fallbacks_of
from nodes.fif.policy import (
    action_refusal,
    current_subqueries,
    enforce,
    rule_action,
    search,
    stop,
)
from nodes.fif.prompts import ORCHESTRATOR_SYSTEM, ORCHESTRATOR_USER
from nodes.fif.schemas import Decision
from state.fif_context import FiFContext
from state.fif_state import Action, FiFState, StepRecord, Strategy, Subquery, bridge_entry
from state.views import pending_bridge
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.graph_nav import neighbors
from tools.llm_calls import StructuredCaller

DOC_MODES = {"neighbors": "neighbors", "vector search": "vector", "llm reasoning": "llm"}
COMP_MODES = {"vector search": "vector", "llm reasoning": "llm"}
MEMORY_SNIPPET = 160


class OrchestratorUpdate(DecisionUpdate, total=False):
    """Keys the orchestrator writes."""

    next_action: Action
    decisions: list[Action]
    subqueries: list[Subquery]


def orchestrator(state: FiFState, runtime: Runtime[FiFContext]) -> OrchestratorUpdate:
    """Decide the next action and check it against the rules."""
    context = runtime.context or FiFContext()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    decided = decide(
        state,
        context,
        meter,
        lambda caller: _llm_action(caller, index, state, meter, context.tuning.bridge_hops),
        lambda: rule_action(state, context, index.graph),
        [lambda proposal: action_refusal(proposal[0], proposal[1], state, context)],
    )
    action, rewrites = decided.value
    if decided.decided_by != "llm":
        action = {
            **action,
            "decided_by": decided.decided_by,
            "reason": action["reason"] + (f" [{decided.note}]" if decided.note else ""),
        }
    action = enforce(action, state, context)
    update: OrchestratorUpdate = {
        "next_action": action,
        "decisions": [action],
        "cost": meter.as_dict(),
        **fallbacks_of("orchestrator", decided),
    }
    # a search adds its new subquery; a stop keeps only subqueries answered already (bridges
    # whose pages a hop found: reranker facets), never a subquery no step will work on
    kept = (
        rewrites
        if action["kind"] == "search"
        else [s for s in rewrites if s["status"] == "answerable"]
    )
    if kept:
        update["subqueries"] = kept
    return update


def _llm_action(
    caller: StructuredCaller,
    index: CorpusIndex,
    state: FiFState,
    meter: CostMeter,
    max_bridges: int,
) -> tuple[Action, list[Subquery]]:
    pending = pending_bridge(state, max_bridges)
    user = ORCHESTRATOR_USER.format(
        question=state["question"],
        subqueries=serialize_subqueries(state.get("subqueries", [])),
        memory=serialize_memory(index, state) or "(empty)",
        neighbors=_neighbor_titles(index, state) or "(none)",
        bridge=as_data(pending[1], "bridge subtask from the evidence") if pending else "(none)",
    )
    proposal = caller.call(Decision, ORCHESTRATOR_SYSTEM, user, meter).action
    if proposal.next_action == "stop":
        return stop("LLM: memory suffices", "llm"), []
    if proposal.next_action == "replan":
        return {"kind": "replan", "reason": "LLM: plan is stale", "decided_by": "llm"}, []
    subquery, rewrites = _target(
        state, proposal.next_retrieval_subtask or state["question"], pending
    )
    strategy: Strategy = {
        "doc_mode": DOC_MODES[proposal.document_search_mode or "vector search"],  # type: ignore[typeddict-item]
        "comp_mode": COMP_MODES[proposal.component_search_mode or "vector search"],  # type: ignore[typeddict-item]
        "granularity": proposal.vector_granularity or "document",
    }
    return search(subquery, strategy, proposal.anchor, "LLM proposal", "llm"), rewrites


def _target(
    state: FiFState, text: str, bridge: tuple[StepRecord, str] | None = None
) -> tuple[Subquery, list[Subquery]]:
    """Map the LLM's subtask to a plan item; a new wording rewrites the one being worked on.

    The suggested bridge subtask, taken as is, becomes a bridge subquery of its source.
    """
    subqueries = state.get("subqueries", [])
    for subquery in subqueries:
        if subquery["text"].strip().lower() == text.strip().lower():
            return subquery, []
    if bridge is not None and bridge[1].strip().lower() == text.strip().lower():
        new = bridge_entry(len(subqueries), bridge[1], bridge[0])
        return new, [new]
    current = current_subqueries(state)
    parent = current[0]["index"] if current else None
    rewrite: Subquery = {
        "index": len(subqueries),
        "text": text.strip(),
        "status": "unknown",
        "answer": None,
        "origin": "rewrite",
    }
    if parent is not None:
        rewrite["parent"] = parent
    return rewrite, [rewrite]


def serialize_subqueries(subqueries: list[Subquery]) -> str:
    """Render the plan with statuses and answers, 1-based."""
    return "\n".join(
        f"{s['index'] + 1}. [{s['status']}] {s['text']}"
        + (f" -> {s['answer']}" if s["answer"] else "")
        for s in subqueries
    )


def serialize_memory(index: CorpusIndex, state: FiFState) -> str:
    """Render the action history: what was asked, how, from where, what came back, verdict."""
    lines = []
    for step in state.get("history", []):
        strategy = step["strategy"]
        found = "; ".join(
            f"{index.graph.title(c['doc_id'])}: {index.graph.node(c['id']).text[:MEMORY_SNIPPET]}"
            for c in step["components"][:3]
        )
        lines.append(
            f"step {step['step']}: {step['subquery']!r} doc={strategy['doc_mode']} "
            f"comp={strategy['comp_mode']} granularity={strategy['granularity']} "
            f"anchor={step['anchor']} -> {'Success' if step['success'] else 'Failure'}"
            f"{' (answerable)' if step['answerable'] else ''}: {step['reason']}\n   found: {found}"
        )
    return as_data("\n".join(lines), "steps with what they found") if lines else ""


def _neighbor_titles(index: CorpusIndex, state: FiFState, limit: int = 30) -> str:
    history = state.get("history", [])
    if not history:
        return ""
    top = history[-1]["components"][:3]
    sources = [c["id"] for c in top] + [str(c["evidence"]) for c in top if c.get("evidence")]
    linked = neighbors(index.graph, [c["doc_id"] for c in top], sources)
    titles = "\n".join(index.graph.title(doc) for doc in list(linked)[:limit])
    return as_data(titles, "document titles") if titles else ""
