"""Image vectors in retrieval: calibrated CLIP scores folded into text-layer scores.

With an image embedder, an image component and its regions have two vectors: their
caption/alt text in the text layers, and their pixels in the image layer. Their score at
component or subcomponent granularity is the max of the two, with the CLIP score first
mapped onto the text scale (tools.calibration). Everything that scores nodes goes
through this one class, reached from CorpusIndex: global search merges `hits` into the
text layer's hits, and exact scoring of known nodes (`fold`, `fold_matrix`) raises the
text scores of image nodes.

A query reaches the image layer through its *twin*: the CLIP text-tower embedding of the
same query text, made when the text vector was made (CorpusIndex.embed_query). A vector
with no twin (one not made by the index) is scored on the text layers only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from state.corpus import LAYERS
from tools.calibration import ScoreCalibration
from tools.index import ChromaLayers, Hit, IndexLayer
from tools.layered_graph import LayeredGraph
from tools.vector_cache import VectorCache

IMAGE_KIND_AT: dict[str, str] = {"component": "image", "subcomponent": "region"}
"""Which image-layer vectors compete at each granularity (the document layer has none)."""


def vector_key(vector: np.ndarray) -> bytes:
    """Return the key under which a query vector's twin is remembered."""
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


@dataclass(frozen=True)
class ImageScores:
    """Score image components and regions by max(text score, calibrated image score)."""

    cache: VectorCache
    layers: ChromaLayers
    calibration: ScoreCalibration
    twin: Callable[[np.ndarray], np.ndarray | None]
    """Text-space query vector -> its image-space twin (None if unknown)."""

    def image_scores(
        self, node_ids: Sequence[str], queries: np.ndarray
    ) -> tuple[list[str], list[int], np.ndarray]:
        """Return calibrated image-layer scores of some nodes against some text-space queries.

        Args:
            node_ids: Candidate nodes; those without an image vector are left out.
            queries: Text-space query vectors, shape (queries, text dim).

        Returns:
            (nodes with an image vector, the query columns with a twin, calibrated scores
            of shape (nodes, those columns)).
        """
        found = [(j, self.twin(query)) for j, query in enumerate(np.atleast_2d(queries))]
        twins = [(j, twin) for j, twin in found if twin is not None]
        if not twins or not node_ids:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        present, matrix = self.cache.matrix("image", list(dict.fromkeys(node_ids)))
        if not present:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        columns = [j for j, _ in twins]
        raw = matrix @ np.stack([twin for _, twin in twins]).astype(np.float32).T
        return present, columns, self.calibration.to_text_scale(raw).astype(np.float32)

    def fold(
        self, scores: Mapping[str, float], query: np.ndarray, node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Return text-layer scores with each image node raised to its calibrated image score."""
        present, _, image = self.image_scores(node_ids, query)
        merged = dict(scores)
        for row, node in enumerate(present):
            value = float(image[row, 0])
            merged[node] = max(merged.get(node, value), value)
        return merged

    def fold_matrix(
        self, row_ids: Sequence[str], scores: np.ndarray, queries: np.ndarray
    ) -> np.ndarray:
        """Return text scores (rows × queries) with image rows raised to their image scores."""
        present, columns, image = self.image_scores(row_ids, queries)
        if not present:
            return scores
        at = {node: i for i, node in enumerate(present)}
        rows = [r for r, node in enumerate(row_ids) if node in at]
        picked = image[[at[row_ids[r]] for r in rows]]
        merged = np.array(scores, copy=True)
        block = np.ix_(rows, columns)
        merged[block] = np.maximum(merged[block], picked.astype(merged.dtype))
        return merged

    def hits(
        self, granularity: str, query: np.ndarray, n: int, doc_ids: Sequence[str] | None
    ) -> list[Hit]:
        """Return up to n image-layer hits at a granularity, scores on the text scale."""
        kind = IMAGE_KIND_AT.get(granularity)
        twin = self.twin(query) if kind else None
        if kind is None or twin is None:
            return []
        found = self.layers.query("image", twin, n, doc_ids, kinds=[kind])
        mapped = self.calibration.to_text_scale(np.array([hit.score for hit in found]))
        return [replace(hit, score=float(v)) for hit, v in zip(found, mapped, strict=True)]


def best_by_owner(
    graph: LayeredGraph,
    parents: Sequence[str],
    layer: IndexLayer,
    similarities: Callable[[list[str]], dict[str, float]],
) -> dict[str, tuple[float, str]]:
    """best_per_parent node by node, for scores the vector cache alone cannot give."""
    owner: dict[str, str] = {}
    for parent in parents:
        nodes = [parent]
        for _ in range(LAYERS.index(layer) - graph.node(parent).layer):  # type: ignore[arg-type]
            nodes = [child for node in nodes for child in graph.children(node)]
        owner.update({node: parent for node in nodes})
    best: dict[str, tuple[float, str]] = {}
    for node, score in similarities(list(owner)).items():
        parent = owner[node]
        if parent not in best or score > best[parent][0]:
            best[parent] = (score, node)
    return best
