"""The reranker node: rank every candidate in memory against the original question (top-k)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.reasoning import decide, fallbacks_of, numbered, valid_indices, with_images
from nodes.fif.fusion import chain_ranking
from nodes.fif.prompts import RERANKER_SYSTEM, RERANKER_USER
from nodes.fif.schemas import Reranking
from state.core import Ranked, ranked_entry
from state.fif_context import FiFContext
from state.fif_state import Candidate, FiFState
from state.views import subquery_finds
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller
from tools.page_fusion import page_first_ranked


class RerankerUpdate(DecisionUpdate, total=False):
    """Keys the reranker writes."""

    ranking: list[Ranked]


def reranker(state: FiFState, runtime: Runtime[FiFContext]) -> RerankerUpdate:
    """Fuse scores offline (or ask the LLM over the fused shortlist) and keep the top-k."""
    context = runtime.context or FiFContext()
    candidates = state.get("candidates", {})
    meter = CostMeter()
    if not candidates:
        return {"ranking": [], "cost": meter.as_dict()}
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    subqueries = [s["text"] for s in state.get("subqueries", [])]
    finds = subquery_finds(state) if context.tuning.keep_subquery_finds else []
    offline, scores = chain_ranking(
        index,
        state["question"],
        subqueries,
        candidates,
        context.top_k,
        meter,
        context.tuning,
        finds,
    )
    offline = page_first_ranked(index, state["question"], offline, context)
    decided = decide(
        state,
        context,
        meter,
        lambda caller: _llm_ranking(
            caller, index, state["question"], scores, candidates, context, meter, offline
        ),
        lambda: offline,
    )
    return {
        "ranking": decided.value,
        "cost": meter.as_dict(),
        **fallbacks_of("reranker", decided),
    }


def _llm_ranking(
    caller: StructuredCaller,
    index: CorpusIndex,
    question: str,
    scores: dict[str, float],
    candidates: dict[str, Candidate],
    context: FiFContext,
    meter: CostMeter,
    offline: list[Ranked],
) -> list[Ranked]:
    shortlist = sorted(scores, key=lambda node: (-scores[node], node))[: context.shortlist_k]
    user = RERANKER_USER.format(question=question, candidates=numbered(index.graph, shortlist))
    parsed = caller.call(
        Reranking,
        RERANKER_SYSTEM.format(top_k=context.top_k),
        with_images(user, index.graph, shortlist, context),
        meter,
        valid_indices(len(shortlist)),
    )
    picked = list(dict.fromkeys(shortlist[item.index] for item in parsed.ranking))
    llm_score = {shortlist[item.index]: item.score for item in parsed.ranking}
    rest = [r["component_id"] for r in offline if r["component_id"] not in llm_score]
    ranking: list[Ranked] = []
    for node in [*picked, *rest][: context.top_k]:
        candidate = candidates[node]
        score = round(llm_score.get(node, 0.0), 5)
        ranking.append(ranked_entry(node, candidate["doc_id"], candidate["kind"], score))
    return ranking
