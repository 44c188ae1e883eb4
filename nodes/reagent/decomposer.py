"""ReAgent's question-decomposer A_Q: Q → {q_1..q_m}, broadcast as `assert` messages.

The offline twin reuses the toolkit's two offline decompositions rather than a third:
FiF's planner splits a question naming several corpus entities into one task per entity
(`nodes.fif.plan_heuristics.decompose`), LILaC's splits it into clauses
(`nodes.lilac.heuristics.offline_subqueries`); both keep the whole question first. A caller
may pass its own sub-questions, which the decomposer then only broadcasts.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate, decision_record
from nodes.core.guards import ungrounded
from nodes.fif.plan_heuristics import decompose
from nodes.lilac.heuristics import offline_subqueries
from nodes.reagent.prompts import DECOMPOSE_SYSTEM, DECOMPOSE_USER, DECOMPOSE_VERSION
from nodes.reagent.protocol import Decision, decide, message, reason_of
from nodes.reagent.schemas import MAX_SUBQUESTIONS, SubQuestions
from state.reagent_state import (
    Message,
    ReAgentContext,
    ReAgentState,
    ReAgentStep,
    SubQuestion,
)
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller


def offline_decomposition(index: CorpusIndex, question: str, limit: int) -> list[str]:
    """Return the question, its per-entity tasks (FiF planner), then its clauses (LILaC)."""
    question = " ".join(question.split())
    by_entity = decompose(index, question, limit)
    by_clause = [s["text"] for s in offline_subqueries(question, limit)]
    return list(dict.fromkeys([*by_entity, *by_clause]))[: max(1, limit)]


def numbered(texts: list[str]) -> list[SubQuestion]:
    """Number distinct sub-question texts from 0 (case-insensitive duplicates dropped)."""
    seen: set[str] = set()
    result: list[SubQuestion] = []
    for text in texts:
        if text.lower() not in seen:
            seen.add(text.lower())
            result.append({"index": len(result), "text": text})
    return result


class DecomposerUpdate(CostUpdate, total=False):
    """The keys the decomposer writes."""

    subquestions: list[SubQuestion]
    pending: list[int]
    step: int
    messages: list[Message]
    trace: list[ReAgentStep]


def decomposer(state: ReAgentState, runtime: Runtime[ReAgentContext]) -> DecomposerUpdate:
    """Decompose the question (unless the caller did) and broadcast the sub-questions."""
    context = runtime.context
    meter = CostMeter()
    limit = min(context.max_subqueries, MAX_SUBQUESTIONS)
    given = state.get("subquestions") or []
    if given:
        texts = [s["text"] for s in given][:limit]
        decision: Decision[list[str]] = Decision(texts, "caller")
    else:
        decision = _decide(state, context, meter, limit)
    subquestions = numbered(decision.value)
    broadcast = [
        message("assert", "decomposer", "all", 0, f"q{s['index']}: {s['text']}")
        for s in subquestions
    ]
    reason = reason_of(decision, f"{len(subquestions)} sub-questions")
    step = decision_record("decomposer", decision.decided_by, reason, DECOMPOSE_VERSION)
    return {
        "subquestions": subquestions,
        "pending": [s["index"] for s in subquestions],
        "step": 0,
        "messages": broadcast,
        "trace": [step],
        "cost": meter.as_dict(),
    }


def _decide(
    state: ReAgentState, context: ReAgentContext, meter: CostMeter, limit: int
) -> Decision[list[str]]:
    question = state["question"]

    def llm(caller: StructuredCaller) -> list[str]:
        answer = caller.call(
            SubQuestions,
            DECOMPOSE_SYSTEM.format(max_subquestions=limit),
            DECOMPOSE_USER.format(question=question),
            meter,
        )
        return answer.sub_questions[:limit]

    def offline() -> list[str]:
        index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
        return offline_decomposition(index, question, limit)

    return decide(
        state, context, meter, llm, offline, [lambda texts: ungrounded(texts, [question])]
    )
