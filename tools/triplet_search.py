"""Search the triplet text KB: a component scores its best triplet (seed 003, §3.2, eqs. 1–2).

An index built with `fif build --triplets` has a `triplet` collection (corpus_builder.
triplet_kb): the triplets of every paragraph and table row, and the own text of units
without triplets, each carrying its document and component. `score_triplets` queries it
and keeps the best entry per component, exactly as SCORE_vec keeps the best descendant
(tools.search); the evidence is the paragraph, sentence or row the triplet came from.
"""

from __future__ import annotations

from collections.abc import Sequence

from state.ids import triplet_owner
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.search import MAX_HITS, ScoredNode

OVERSAMPLE = 10
"""Triplet hits asked per component wanted: a paragraph holds several triplets."""


def has_triplet_kb(index: CorpusIndex) -> bool:
    """Tell whether the index was built with a triplet KB that holds triplets."""
    built = index.manifest.triplets
    return built is not None and built.triplets > 0


def score_triplets(
    index: CorpusIndex,
    query: str,
    k: int,
    doc_ids: Sequence[str] | None = None,
    meter: CostMeter | None = None,
) -> list[ScoredNode]:
    """Return the top-k components by their best triplet-KB entry (inside `doc_ids` if given)."""
    meter = meter or CostMeter()
    with meter.timed("embedding"):
        vector = index.embed_query(query)
    doc_ids = index.within(doc_ids)
    n = min(MAX_HITS, k * OVERSAMPLE)
    while True:
        with meter.timed("vector"):
            hits = index.layers.query("triplet", vector, n, doc_ids)
        best: dict[str, ScoredNode] = {}
        for hit in hits:  # best first: the first hit of a component is its best
            if hit.component_id in best or hit.component_id not in index.graph:
                continue
            kind = index.graph.node(hit.component_id).kind
            owner = triplet_owner(hit.node_id, hit.kind)
            best[hit.component_id] = ScoredNode(
                hit.component_id, hit.doc_id, kind, hit.score, owner
            )
        if len(best) >= k or len(hits) < n or n >= MAX_HITS:
            ranked = sorted(best.values(), key=lambda node: (-node.score, node.node_id))
            return ranked[:k]
        n = min(MAX_HITS, n * 2)
