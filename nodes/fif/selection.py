"""Careful selection of shortlisted documents or components: by the LLM, or its offline twin.

The offline twin rescores each candidate against both the subquery and the original
question at component and subcomponent granularity and keeps the best, a slower but
sharper judgement than the single vector score that built the shortlist.
"""

from __future__ import annotations

from nodes.core.guards import bad_selection
from nodes.core.reasoning import Decided, decide, numbered, valid_indices, with_images
from nodes.fif.prompts import (
    COMPONENT_SELECT_SYSTEM,
    DOC_SELECT_SYSTEM,
    SELECT_USER,
)
from nodes.fif.schemas import Selection
from nodes.fif.traversal import Selector
from state.fif_context import FiFContext
from state.fif_state import FiFState
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.late_interaction import NO_EVIDENCE, facet_profiles
from tools.llm_calls import StructuredCaller


def careful_scores(
    index: CorpusIndex, queries: list[str], candidates: list[str], meter: CostMeter
) -> dict[str, float]:
    """Score candidates by their best match to any query at component or subcomponent level."""
    matrix = facet_profiles(index, queries, candidates, meter)
    best = matrix.max(axis=1, initial=NO_EVIDENCE)
    return {node: float(best[i]) for i, node in enumerate(candidates) if best[i] > NO_EVIDENCE}


def make_selector(
    index: CorpusIndex,
    state: FiFState,
    context: FiFContext,
    subquery: str,
    granularity: str,
    meter: CostMeter,
    notes: list[Decided],
) -> Selector:
    """Return the selector a traversal uses for its "llm" stages; records each decision."""
    question = state["question"]

    def select(stage: str, candidates: list[str], keep: int) -> list[tuple[str, float]]:
        def offline() -> list[tuple[str, float]]:
            scores = careful_scores(index, [subquery, question], candidates, meter)
            return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:keep]

        def with_llm(caller: StructuredCaller) -> list[tuple[str, float]]:
            system = DOC_SELECT_SYSTEM if stage == "document" else COMPONENT_SELECT_SYSTEM
            user = SELECT_USER.format(
                question=question,
                subquery=subquery,
                granularity=granularity,
                candidates=numbered(index.graph, candidates),
            )
            parsed = caller.call(
                Selection,
                system.format(max_results=keep),
                with_images(user, index.graph, candidates, context),
                meter,
                valid_indices(len(candidates)),
            )
            picked = [(candidates[item.index], item.score) for item in parsed.selection]
            return list(dict(picked).items())[:keep]

        allowed = not context.no_llm_traversal

        def check(picked: list[tuple[str, float]]) -> str | None:
            return bad_selection([candidates.index(node) for node, _ in picked], len(candidates))

        decided = decide(state, context, meter, with_llm if allowed else None, offline, [check])
        notes.append(decided)
        return list(decided.value)

    return select
