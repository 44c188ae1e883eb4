"""The answerer node: a short answer grounded in the top-ranked components (when asked for).

The decision itself (LLM with support checks, or the offline reader) is shared with every
answering system: nodes/core/answering.py.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.answering import answer_text, decide_answer
from nodes.core.decision import DecisionUpdate
from nodes.core.reasoning import fallbacks_of
from state.fif_context import FiFContext
from state.fif_state import FiFState
from tools.corpus_index import open_index
from tools.cost import CostMeter

ANSWER_COMPONENTS = 10


class AnswererUpdate(DecisionUpdate, total=False):
    """Keys the answerer writes."""

    answer: str | None


def answerer(state: FiFState, runtime: Runtime[FiFContext]) -> AnswererUpdate:
    """Answer the question from the final ranking."""
    context = runtime.context or FiFContext()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    ids = [r["component_id"] for r in state.get("ranking", [])][:ANSWER_COMPONENTS]
    decided = decide_answer(index, state["question"], ids, context, meter, state)
    return {
        "answer": answer_text(decided),
        "cost": meter.as_dict(),
        **fallbacks_of("answerer", decided),
    }
