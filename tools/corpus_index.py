"""Open a built index once: manifest, layered graph, Chroma layers and the matching embedders."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from tools.embedders import Embedder, load_embedder
from tools.errors import IndexMismatchError, IndexNotFoundError
from tools.index import ChromaLayers
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest
from tools.vector_cache import VectorCache

logger = logging.getLogger(__name__)


@dataclass
class CorpusIndex:
    """Everything a search needs, loaded once per index location."""

    index_dir: Path
    manifest: Manifest
    graph: LayeredGraph
    layers: ChromaLayers
    text_embedder: Embedder
    image_embedder: Embedder | None
    cache: VectorCache
    _query_cache: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def open(cls, index_dir: Path, chroma_url: str | None = None) -> CorpusIndex:
        """Open an index, refusing incomplete builds and embedder mismatches."""
        manifest = Manifest.load(index_dir)
        if not manifest.complete:
            raise IndexNotFoundError(
                f"{index_dir}: the last build did not finish; re-run `fif build CORPUS "
                f"--index {index_dir}` (it resumes where it stopped)"
            )
        graph = LayeredGraph.load(index_dir / GRAPH_FILE)
        layers = ChromaLayers.open(index_dir, chroma_url or manifest.chroma_url, manifest.name)
        text = load_embedder(manifest.text_embedder.spec)
        if text.dim != manifest.text_embedder.dim:
            raise IndexMismatchError(
                f"{index_dir}: built with dim {manifest.text_embedder.dim}, but "
                f"{manifest.text_embedder.spec} now gives {text.dim}; rebuild with --rebuild"
            )
        image = None
        if manifest.image_embedder is not None:
            image = load_embedder(manifest.image_embedder.spec)
        return cls(index_dir, manifest, graph, layers, text, image, VectorCache(layers))

    def embed_query(self, text: str, space: str = "text") -> np.ndarray:
        """Embed a query in the text (or image) space, caching repeated queries."""
        key = (space, text)
        with self._lock:
            cached = self._query_cache.get(key)
        if cached is not None:
            return cached
        embedder = self.text_embedder if space == "text" else self.image_embedder
        if embedder is None:
            raise IndexMismatchError(f"{self.index_dir} has no {space} embedder")
        vector = embedder.embed([text])[0]
        with self._lock:
            if len(self._query_cache) > 4096:
                self._query_cache.clear()
            self._query_cache[key] = vector
        return vector

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        """Embed several text queries in one batch, reusing cached ones."""
        missing = [t for t in dict.fromkeys(texts) if ("text", t) not in self._query_cache]
        if missing:
            vectors = self.text_embedder.embed(missing)
            with self._lock:
                self._query_cache.update(
                    {("text", t): v for t, v in zip(missing, vectors, strict=True)}
                )
        return [self._query_cache[("text", t)] for t in texts]


@lru_cache(maxsize=4)
def open_index(index_dir: str, chroma_url: str | None = None) -> CorpusIndex:
    """Return the one shared CorpusIndex of a location (builder, CLI and agent share it)."""
    return CorpusIndex.open(Path(index_dir), chroma_url)
