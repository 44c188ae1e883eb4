"""An in-memory copy of one layer's vectors for exact scoring of known node sets.

Global search goes to Chroma's ANN index; scoring the descendants of a handful of
documents (a local hop, a rerank, a late-interaction edge) is a small dense product,
done here after the layer is read from Chroma once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

import numpy as np

from tools.index import GET_BATCH, ChromaLayers, IndexLayer

logger = logging.getLogger(__name__)


class VectorCache:
    """Lazily load each layer's (ids, matrix) from Chroma and answer exact similarities."""

    def __init__(self, layers: ChromaLayers) -> None:
        self.layers = layers
        self._rows: dict[str, dict[str, int]] = {}
        self._matrix: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _load(self, layer: IndexLayer) -> None:
        with self._lock:
            if layer in self._matrix:
                return
            collection = self.layers.collection(layer)
            ids: list[str] = []
            chunks: list[np.ndarray] = []
            for offset in range(0, collection.count(), GET_BATCH):
                page = collection.get(include=["embeddings"], limit=GET_BATCH, offset=offset)
                ids.extend(page["ids"])
                chunks.append(np.asarray(page["embeddings"], dtype=np.float32))
            matrix = np.concatenate(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)
            self._rows[layer] = {node_id: row for row, node_id in enumerate(ids)}
            self._matrix[layer] = matrix
            logger.info("cached %d %s vectors", len(ids), layer)

    def similarities(
        self, layer: IndexLayer, query: np.ndarray, node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Return cosine similarities of the query to the given nodes (unknown ids omitted)."""
        self._load(layer)
        rows = self._rows[layer]
        present = [node_id for node_id in node_ids if node_id in rows]
        if not present:
            return {}
        picked = self._matrix[layer][[rows[node_id] for node_id in present]]
        scores = picked @ np.asarray(query, dtype=np.float32)
        return dict(zip(present, scores.tolist(), strict=True))

    def matrix(self, layer: IndexLayer, node_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Return (present ids, their vectors) for late-interaction style scoring."""
        self._load(layer)
        rows = self._rows[layer]
        present = [node_id for node_id in node_ids if node_id in rows]
        return present, self._matrix[layer][[rows[node_id] for node_id in present]]
