"""Retrieve candidates per knowledge base and keep those within a similarity radius.

Seed 003 (§3.4, eq. 11; Appendix A.5) queries each knowledge base for every neighbour
within a distance r of the query embedding instead of a fixed top-k, because the number
of relevant sources varies by question. Our scores are cosines (text) and calibrated
CLIP scores on the text scale (images), whose levels shift from query to query, so the
radius is measured from each pool's best score: a candidate is kept when
`best - score <= radius`. Three pools, each with its own radius:

- text: the text KB scored against the text part, best entry per component: the triplet
  KB when the index was built with `fif build --triplets` (tools.triplet_search), else
  sentences and table rows (the subcomponent layer, standing in for the seed's triplets);
- target: the components of documents the instruction names (identifier lookup), in the
  same text KB;
- image: image components, by caption text and (with an image embedder) by pixels;
  targeted image retrieval scores the named documents' images, descriptive the whole KB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from state.mmapg_state import Evidence, MMAPGContext, Pool
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.search import ScoredNode, score_vec
from tools.triplet_search import has_triplet_kb, score_triplets

IMAGE_KINDS: dict[Literal["component", "subcomponent"], str] = {
    "component": "image",
    "subcomponent": "region",
}
"""The node kind of images at each granularity of the layers."""


@dataclass(frozen=True)
class RadiusSettings:
    """How many candidates to fetch and which ones to keep, per modality."""

    text_radius: float
    image_radius: float
    max_in_radius: int
    shortlist_k: int
    fixed_top_k: int | None = None
    triplet_kb: bool = False
    """Search the index's triplet KB as the text KB (else sentences and rows)."""

    @classmethod
    def of(cls, context: MMAPGContext, index: CorpusIndex | None = None) -> RadiusSettings:
        """Return the settings a context asks for (the triplet KB if `index` has one)."""
        return cls(
            context.text_radius,
            context.image_radius,
            context.max_in_radius,
            context.shortlist_k,
            context.fixed_top_k,
            context.triplet_kb and index is not None and has_triplet_kb(index),
        )

    def radius(self, pool: Pool) -> float:
        """Return the radius of a pool (identifier lookups live in the text KB)."""
        return self.image_radius if pool == "image" else self.text_radius


def evidence_of(node: ScoredNode, pool: Pool) -> Evidence:
    """Turn a scored component into a candidate record."""
    return {
        "component_id": node.node_id,
        "doc_id": node.doc_id,
        "kind": node.kind,
        "score": round(node.score, 6),
        "pool": pool,
        "evidence": node.evidence,
        "note": "",
    }


def within_radius(
    candidates: Sequence[Evidence], radius: float, cap: int, fixed_top_k: int | None = None
) -> tuple[list[Evidence], list[Evidence]]:
    """Split candidates into (inside the radius of the best, the rest), both best first.

    With `fixed_top_k` (the ablation) the first k are inside whatever their scores.
    """
    ordered = sorted(candidates, key=lambda c: (-c["score"], c["component_id"]))
    if not ordered:
        return [], []
    if fixed_top_k is not None:
        return ordered[:fixed_top_k], ordered[fixed_top_k:]
    best = ordered[0]["score"]
    inside = [c for c in ordered if best - c["score"] <= radius][:cap]
    chosen = {c["component_id"] for c in inside}
    return inside, [c for c in ordered if c["component_id"] not in chosen]


def text_pool(
    index: CorpusIndex,
    query: str,
    k: int,
    meter: CostMeter,
    doc_ids: Sequence[str] | None = None,
    triplet_kb: bool = False,
) -> list[Evidence]:
    """Score components by their best triplet, or sentence or row (inside `doc_ids` if given)."""
    pool: Pool = "text" if doc_ids is None else "target"
    if triplet_kb:
        found = score_triplets(index, query, k, doc_ids, meter)
    else:
        found = score_vec(index, query, "component", "subcomponent", k, doc_ids, meter)
    return [evidence_of(node, pool) for node in found]


def image_pool(
    index: CorpusIndex,
    query: str,
    k: int,
    meter: CostMeter,
    doc_ids: Sequence[str] | None = None,
) -> list[Evidence]:
    """Score image components by caption text and image vectors, best region or whole image.

    `doc_ids` restricts the search to named documents (targeted image retrieval); the
    index's document scope bounds it either way.
    """
    doc_ids = index.within(doc_ids)
    with meter.timed("embedding"):
        vector = index.embed_query(query)
    best: dict[str, Evidence] = {}
    for granularity, kind in IMAGE_KINDS.items():
        with meter.timed("vector"):
            hits = index.layers.query(granularity, vector, k, doc_ids, kinds=[kind])
            hits += index.image_hits(granularity, vector, k, doc_ids)
        for hit in hits:
            component = hit.node_id if granularity == "component" else hit.component_id
            if component in best and best[component]["score"] >= hit.score:
                continue
            node = ScoredNode(component, hit.doc_id, "image", hit.score, hit.node_id)
            best[component] = evidence_of(node, "image")
    return sorted(best.values(), key=lambda c: (-c["score"], c["component_id"]))[:k]


def merge_pools(*pools: Sequence[Evidence]) -> list[Evidence]:
    """Merge candidate lists by component, keeping each component's first (best-pool) record."""
    merged: dict[str, Evidence] = {}
    for pool in pools:
        for candidate in pool:
            merged.setdefault(candidate["component_id"], candidate)
    return list(merged.values())
