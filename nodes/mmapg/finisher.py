"""MMAPG's finisher node: add the Stop node, give the final answer, rank, draw the graph.

Stop ends the run with the last Answer node's content (seed 003, §3.3); when no Answer
node exists (a Stop chosen early, or the iteration cap), the answer comes from the whole
graph, as the seed's Algorithm 1 (line 24) does. The planning graph is drawn as a mermaid
flowchart into the state and the trace.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate, decision_record
from nodes.core.reasoning import Decided, fallbacks_of
from nodes.mmapg.answering import answer
from nodes.mmapg.graph_view import last_answer, llm_budget_left, mermaid, next_id
from nodes.mmapg.ranking import ranked
from state.core import Ranked
from state.mmapg_state import MMAPGContext, MMAPGState, MMAPGStep, PlanNode
from tools.corpus_index import open_index
from tools.cost import CostMeter


class FinisherUpdate(DecisionUpdate, total=False):
    """The keys the finisher writes."""

    nodes: list[PlanNode]
    ranking: list[Ranked]
    answer: str | None
    graph_text: str
    trace: list[MMAPGStep]


def final_answer(
    state: MMAPGState, context: MMAPGContext, meter: CostMeter
) -> tuple[str | None, Decided | None]:
    """Return the last Answer node's content, or an answer from the whole graph if asked for."""
    written = last_answer(state["nodes"])
    if written is not None:
        return written["content"], None
    if not context.answer:
        return None, None
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    allowed = llm_budget_left(state, context.max_llm_calls, context.max_tokens)
    decided = answer(
        index, state["question"], state["question"], state["nodes"], context, meter, allowed
    )
    return str(decided.value), decided


def finisher(state: MMAPGState, runtime: Runtime[MMAPGContext]) -> FinisherUpdate:
    """Stop the graph: final answer, ranking of what was found, and the graph's drawing."""
    context = runtime.context
    meter = CostMeter()
    nodes = state["nodes"]
    planned = next((a for a in state.get("pending", []) if a["type"] == "stop"), None)
    text, decided = final_answer(state, context, meter)
    stop: PlanNode = {
        "id": next_id(nodes),
        "type": "stop",
        "parents": planned["parents"] if planned else [nodes[-1]["id"]],
        "instruction": planned["reason"] if planned else "",
        "content": text or "",
        "status": "stopped",
        "found": [],
        "others": [],
        "detail": {},
        "decided_by": planned["decided_by"] if planned else "rule",
    }
    grown = [*nodes, stop]
    drawing = mermaid(grown)
    reason = f"stopped after {len(nodes)} nodes ({stop['instruction'] or 'stop'})"
    by = decided.decided_by if decided else "graph"
    step = decision_record("finisher", by, reason, None, graph=drawing, nodes=len(grown))
    return {
        "nodes": [stop],
        "ranking": ranked(grown, context.top_k),
        "answer": text,
        "graph_text": drawing,
        "trace": [step],
        "cost": meter.as_dict(),
        **(fallbacks_of("finisher", decided) if decided else {}),
    }
