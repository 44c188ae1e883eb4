"""LILaC's traverser node: embed Q and Q_sub, run the beam search, return the beam and ranking.

Our text embedders take no modality instruction, so f(q; m) is f(q) unless
`LilacContext.modality_hint` prefixes the modality to the subquery text.
"""

from __future__ import annotations

import logging

import numpy as np
from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate
from nodes.lilac.beam import BeamResult, BeamSettings, beam_search
from nodes.lilac.late_interaction import Unit
from state.core import Ranked, ranked_entry
from state.lilac_state import LilacContext, LilacState, LilacStep, LilacSubquery, ScoredEdge
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter

logger = logging.getLogger(__name__)

MODALITY_HINTS = {"text": "passage", "table": "table row", "image": "image"}
"""The prefix `modality_hint` puts before a subquery, by its modality."""
TRACE_UNITS = 10
"""How many beam units the trace record lists."""


class TraverserUpdate(CostUpdate, total=False):
    """The keys the traverser writes."""

    beam: list[ScoredEdge]
    ranking: list[Ranked]
    trace: list[LilacStep]


def embedding_text(subquery: LilacSubquery, hint: bool) -> str:
    """Return the text embedded for a subquery: f(q; m) approximated by an optional prefix."""
    if not hint:
        return subquery["text"]
    return f"{MODALITY_HINTS[subquery['modality']]}: {subquery['text']}"


def settings_of(context: LilacContext) -> BeamSettings:
    """Return the beam settings a context asks for."""
    return BeamSettings(
        width=context.beam_width,
        iterations=context.iterations,
        top_k=context.top_k,
        seed_granularity=context.seed_granularity,
        follow_backlinks=context.follow_backlinks,
        max_edges_per_node=context.max_edges_per_node,
    )


def traverser(state: LilacState, runtime: Runtime[LilacContext]) -> TraverserUpdate:
    """Find the top-b edges for the question and rank their components."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    question = state["question"]
    subqueries = state.get("subqueries") or [{"index": 0, "text": question, "modality": "text"}]
    texts = [question, *(embedding_text(s, context.modality_hint) for s in subqueries)]
    with meter.timed("embedding"):
        vectors = index.embed_queries(texts)
    result = beam_search(index, vectors[0], np.stack(vectors[1:]), settings_of(context), meter)
    return {
        "beam": [scored_edge(unit, result) for unit in result.beam],
        "ranking": ranked(index, result),
        "trace": [trace_step(result, len(subqueries))],
        "cost": meter.as_dict(),
    }


def scored_edge(unit: Unit, result: BeamResult) -> ScoredEdge:
    """Turn a beam unit into its state record, with the evidence of each subquery."""
    return {
        "components": list(unit.components),
        "kind": unit.kind,
        "score": round(unit.score, 6),
        "one_sided": unit.one_sided,
        "evidence": result.profiles.evidence(unit.components),
    }


def ranked(index: CorpusIndex, result: BeamResult) -> list[Ranked]:
    """Turn the beam search's ranking into ranking records."""
    records: list[Ranked] = []
    for component, score in result.ranking:
        view = index.graph.node(component)
        records.append(ranked_entry(component, view.doc_id, view.kind, round(score, 6)))
    return records


def trace_step(result: BeamResult, subqueries: int) -> LilacStep:
    """Summarise a beam search for the trace: sizes per iteration and the best units."""
    return {
        "node": "traverser",
        "decided_by": "late-interaction",
        "reason": (
            f"{len(result.seeds)} seeds, {len(result.iterations)} iterations, "
            f"{len(result.beam)} edges kept for {subqueries} subqueries"
        ),
        "prompt_version": None,
        "detail": {
            "seeds": [c for c, _ in result.seeds[:TRACE_UNITS]],
            "iterations": result.iterations,
            "top_units": [
                {"components": list(u.components), "kind": u.kind, "score": round(u.score, 4)}
                for u in result.beam[:TRACE_UNITS]
            ],
        },
    }
