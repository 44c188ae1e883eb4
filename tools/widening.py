"""Chroma's approximate search, widened until k distinct documents or components show up.

A layer's hits are aggregated per ancestor at the target layer (a document, a component);
many hits can share one (a long table's rows), so the search asks for more until k are
found, the layer runs out or MAX_HITS is reached.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from state.core import Granularity, Ranked, ranked_entry
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.index import Hit

Target = Literal["document", "component"]
GRANULARITY_LAYER = {"document": 0, "component": 1, "subcomponent": 2}
OVERSAMPLE = {"document": 1, "component": 3, "subcomponent": 8}
MAX_HITS = 3000


@dataclass(frozen=True)
class ScoredNode:
    """A document or component with its vector score and the descendant that earned it."""

    node_id: str
    doc_id: str
    kind: str
    score: float
    evidence: str

    def ranked(self) -> Ranked:
        """Return the hit as a ranking entry, its score to six places as every ranking has it."""
        return ranked_entry(self.node_id, self.doc_id, self.kind, round(self.score, 6))


def widening(
    index: CorpusIndex,
    hits_of: Callable[[int], tuple[list[Hit], bool]],
    target: Target,
    granularity: Granularity,
    k: int,
    doc_ids: Sequence[str] | None,
) -> list[ScoredNode]:
    """Aggregate layer hits per ancestor, asking `hits_of(n)` for more until k are found.

    Many hits can share an ancestor (a long table's rows): ask for more until k distinct
    ancestors are found or the layer (or MAX_HITS) is exhausted.
    """
    n = _hits_needed(index, target, granularity, k, doc_ids)
    while True:
        hits, exhausted = hits_of(n)
        found = aggregate(index, hits, target, granularity, k)
        if len(found) >= k or exhausted or n >= MAX_HITS:
            return found
        n = min(MAX_HITS, n * 2)


def layer_hits(
    index: CorpusIndex,
    vector: np.ndarray,
    granularity: Granularity,
    n: int,
    doc_ids: Sequence[str] | None,
    meter: CostMeter,
    exact: bool = False,
) -> tuple[list[Hit], bool]:
    """Return up to n layer-g hits, best first, and whether the layer ran out.

    With an image embedder, the image layer's images (component granularity) or regions
    (subcomponent granularity) are queried too and merged on the text scale, so an image
    counts by the better of its caption and its pixels. `exact` scores every row of the
    layer's vector cache instead of asking Chroma, for a text-only index searched whole;
    its hits take their fields from the graph, as Chroma's do.
    """
    if exact and doc_ids is None and index.image_scores() is None:
        with meter.timed("vector"):
            nearest = index.cache.nearest(granularity, vector, n)
        fields = index.layers.nodes or (lambda node_id: None)
        found = [Hit(node, *(fields(node) or ("", "", "")), score) for node, score in nearest]
        return found, len(found) < n
    with meter.timed("vector"):
        hits = index.layers.query(granularity, vector, n, doc_ids)
        images = index.image_hits(granularity, vector, n, doc_ids)
    exhausted = len(hits) < n and len(images) < n
    if not images:
        return hits, exhausted
    return sorted([*hits, *images], key=lambda hit: (-hit.score, hit.node_id)), exhausted


def aggregate(
    index: CorpusIndex, hits: Sequence[Hit], target: Target, granularity: Granularity, k: int
) -> list[ScoredNode]:
    """Keep the best hit per ancestor at the target layer (hits arrive best first)."""
    best: dict[str, ScoredNode] = {}
    for hit in hits:
        key = _ancestor(hit, target, granularity)
        if key in best:
            continue
        kind = "document" if target == "document" else index.graph.node(key).kind
        best[key] = ScoredNode(key, hit.doc_id, kind, hit.score, hit.node_id)
        if len(best) >= k:
            break
    return sorted(best.values(), key=lambda node: (-node.score, node.node_id))


def _ancestor(hit: Hit, target: Target, granularity: Granularity) -> str:
    if target == "document":
        return hit.doc_id if granularity != "document" else hit.node_id
    return hit.node_id if granularity == "component" else hit.component_id


def _hits_needed(
    index: CorpusIndex,
    target: Target,
    granularity: Granularity,
    k: int,
    doc_ids: Sequence[str] | None,
) -> int:
    """Ask for enough layer-g hits that k distinct ancestors are likely among them.

    Inside a document set the search is exhaustive: every descendant is scored.
    """
    if doc_ids is None:
        return min(MAX_HITS, k * OVERSAMPLE[granularity])
    depth = GRANULARITY_LAYER[granularity]
    nodes = list(doc_ids)
    for _ in range(depth):
        nodes = [child for node in nodes for child in index.graph.children(node)]
    return max(1, min(MAX_HITS, len(nodes)))
