"""Open a built index once: manifest, layered graph, Chroma layers and the matching embedders.

Exact scoring goes through `similarities` / `fold_image_scores`, global search adds
`image_hits`: calibrated image-layer scores folded into the text ones (tools.image_scores).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tools.calibration import estimate_calibration
from tools.component_terms import ComponentTerms, open_terms
from tools.embed_process import embed_helper
from tools.embedders import Embedder, embed_each, load_embedder
from tools.errors import IndexMismatchError, IndexNotFoundError
from tools.gc_pause import gc_paused
from tools.image_scores import ImageScores, best_by_owner, vector_key
from tools.index import ChromaLayers, Hit, IndexLayer, graph_fields
from tools.index_pins import pinned
from tools.index_versions import live_dir
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest
from tools.query_vectors import CACHE_LIMIT, QueryVectors
from tools.saved_encoder import query_embedder
from tools.sparse_index import SparseLayers
from tools.vector_cache import VectorCache
from tools.vector_mirror import layer_reader, mirror_counts

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
    scope: frozenset[str] | None = None
    """Only these documents are searched (None: all); see `scoped` and `within`."""
    queries: QueryVectors = field(default_factory=QueryVectors, repr=False)
    """Text query vectors and their helper process (tools.query_vectors), shared with scoped
    views; `queries.helper = None` embeds in-process only."""
    _twins: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False)
    """Text-space query vector (its bytes) -> the same query in the image space."""
    _loaded: dict[str, Any] = field(default_factory=dict, repr=False)
    """What loads on first use (image scorer, BM25 layers, terms), shared with scoped views."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    data_dir: Path | None = None
    """The version folder it reads (tools.index_versions); None: `index_dir` itself."""
    mirrored: frozenset[str] = frozenset()
    """Layers whose vectors and counts come from the build's current copy (tools.vector_mirror)."""

    @classmethod
    def open(cls, index_dir: Path, chroma_url: str | None = None) -> CorpusIndex:
        """Open the live version of an index (read whole from it, also what loads later)."""
        with gc_paused():
            return cls._open(index_dir, chroma_url)

    @classmethod
    def _open(cls, index_dir: Path, chroma_url: str | None) -> CorpusIndex:
        data = live_dir(index_dir)
        manifest = Manifest.load(data)
        if not manifest.complete:
            raise IndexNotFoundError(
                f"{index_dir}: the last build did not finish; re-run `fif build CORPUS "
                f"--index {index_dir}` (it resumes where it stopped)"
            )
        graph = LayeredGraph.load(data / GRAPH_FILE)
        layers = ChromaLayers.open(data, chroma_url or manifest.chroma_url, manifest.prefix)
        layers.nodes = graph_fields(graph)
        counts = mirror_counts(data, manifest.vectors_token)
        layers.remember_counts(counts)  # a run that searches only the copy never opens Chroma
        text = query_embedder(manifest.text_embedder.spec)
        if text.dim != manifest.text_embedder.dim:
            raise IndexMismatchError(
                f"{index_dir}: built with dim {manifest.text_embedder.dim}, but "
                f"{manifest.text_embedder.spec} now gives {text.dim}; rebuild with --rebuild"
            )
        if text.model_id != manifest.text_embedder.model_id:
            logger.warning(
                "%s: vectors from %s, queries from %s; run `fif build` on it again to re-embed",
                index_dir,
                manifest.text_embedder.model_id,
                text.model_id,
            )
        image = None
        if manifest.image_embedder is not None:
            image = load_embedder(manifest.image_embedder.spec)
        cache = VectorCache(layers, graph, layer_reader(data, layers, manifest.vectors_token))
        # image scoring keeps each text query's image twin, which only this process makes
        spec = manifest.text_embedder.spec
        helper = None if image else embed_helper(spec, text.model_id, text.dim)
        found = cls(index_dir, manifest, graph, layers, text, image, cache, data_dir=data)
        found.mirrored = frozenset(counts)
        found.queries = QueryVectors(helper)
        return found

    def scoped(self, doc_ids: Sequence[str] | None) -> CorpusIndex:
        """Return a view of this index whose searches stay inside `doc_ids` (None: all).

        The view shares everything else; searches pass the scope into the index query
        itself (Chroma `where`, BM25 mask): exhaustive inside it, not a filtered top-k.

        Raises:
            IndexMismatchError: If a scoped document is not in the index.
        """
        if doc_ids is None:
            return self if self.scope is None else replace(self, scope=None)
        missing = [d for d in doc_ids if d not in self.graph or self.graph.node(d).layer != 0]
        if missing:
            raise IndexMismatchError(
                f"{self.index_dir} has no document {', '.join(map(repr, missing[:3]))}; "
                "the document scope must name documents of the index (their doc ids)"
            )
        return replace(self, scope=frozenset(doc_ids))

    def within(self, doc_ids: Sequence[str] | None) -> list[str] | None:
        """Return the documents a search may look at: `doc_ids` limited to the scope."""
        if self.scope is None:
            return None if doc_ids is None else list(doc_ids)
        if doc_ids is None:
            return sorted(self.scope)
        return [d for d in doc_ids if d in self.scope]

    def in_scope(self, doc_id: str) -> bool:
        """Tell whether a document may be searched or reached."""
        return self.scope is None or doc_id in self.scope

    def embed_query(self, text: str, space: str = "text") -> np.ndarray:
        """Embed a query in the text (or image) space; text queries are cached."""
        if space == "text":
            return self.embed_queries([text])[0]
        if self.image_embedder is None:
            raise IndexMismatchError(f"{self.index_dir} has no {space} embedder")
        return np.asarray(self.image_embedder.embed([text])[0])

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        """Embed several text queries in one batch, reusing cached and prefetched ones."""
        return self.queries.vectors(texts, self._embed_texts)

    def prefetch_queries(self, texts: Sequence[str]) -> None:
        """Declare a batch of text queries needed later (`tools.query_vectors`)."""
        self.queries.prefetch(texts)

    def forget_queries(self) -> None:
        """Drop cached query vectors: the eval runner's next (question, system) pays its own."""
        self.queries.forget()

    def _embed_texts(self, texts: list[str]) -> list[np.ndarray]:
        """Embed text queries; with image scoring, also keep their image-space twins."""
        vectors = list(embed_each(self.text_embedder, texts))
        if self.image_scores() is not None and self.image_embedder:
            twins = self.image_embedder.embed(texts)
            with self._lock:
                if len(self._twins) > CACHE_LIMIT:
                    self._twins.clear()
                self._twins.update({vector_key(v): w for v, w in zip(vectors, twins, strict=True)})
        return vectors

    def sparse(self) -> SparseLayers:
        """Return the BM25 layer indices, loaded on first use (dense-only runs never pay).

        Raises:
            IndexNotFoundError: If the index was built before sparse search existed.
        """
        sparse: SparseLayers = self._once("sparse", SparseLayers.open)
        return sparse

    def component_terms(self) -> ComponentTerms | None:
        """Return the build's store of component terms (`open_terms`), loaded on first use."""
        terms: ComponentTerms | None = self._once("terms", open_terms)
        return terms

    def _once(self, key: str, load: Callable[[Path], Any]) -> Any:
        with self._lock:
            if key not in self._loaded:
                with gc_paused():
                    self._loaded[key] = load(self.data_dir or self.index_dir)
            return self._loaded[key]

    def image_scores(self) -> ImageScores | None:
        """Return the image scorer, calibrating once if the manifest has no calibration.

        None without an image embedder or without image vectors in the index.
        """
        if self.image_embedder is None:
            return None
        with self._lock:
            if "images" not in self._loaded:
                calibration = self.manifest.image_calibration or estimate_calibration(
                    self.graph, self.layers, self.text_embedder, self.image_embedder
                )
                self._loaded["images"] = calibration and ImageScores(
                    self.cache, self.layers, calibration, self._twin
                )
            images: ImageScores | None = self._loaded["images"]
            return images

    def _twin(self, vector: np.ndarray) -> np.ndarray | None:
        return self._twins.get(vector_key(vector))

    def similarities(
        self, layer: IndexLayer, query: np.ndarray, node_ids: Sequence[str]
    ) -> dict[str, float]:
        """Return the score of each known node of a layer (unknown ids omitted).

        A node's score is its cosine to the query; an image or region with an image
        vector scores the max of that and its calibrated image score.
        """
        scores = self.cache.similarities(layer, query, node_ids)
        images = self.image_scores() if layer != "document" else None
        return scores if images is None else images.fold(scores, query, node_ids)

    def best_per_parent(
        self, layer: IndexLayer, query: np.ndarray, parents: Sequence[str]
    ) -> dict[str, tuple[float, str]]:
        """Score each parent (documents or components) by its best descendant in `layer`.

        Returns parent -> (score, that descendant). Images and regions count by the better
        of their text and image vectors, as in `similarities`.
        """
        if self.image_scores() is None:
            return self.cache.best_per_parent(layer, query, parents)
        return best_by_owner(
            self.graph, parents, layer, lambda nodes: self.similarities(layer, query, nodes)
        )

    def best_per_parent_of_each(
        self, layer: IndexLayer, queries: np.ndarray, parents: Sequence[str]
    ) -> tuple[list[str], np.ndarray]:
        """Return `best_per_parent`'s scores for several queries: (parents, parents × queries).

        One product over the rows for text-only indices; with image rows, query by query.
        """
        if self.image_scores() is None:
            return self.cache.best_per_parent_of_each(layer, queries, parents)
        found = [self.best_per_parent(layer, query, parents) for query in queries]
        names = list(found[0]) if found else []
        best = [[scores[name][0] for scores in found] for name in names]
        return names, np.array(best, dtype=np.float32).reshape(len(names), len(found))

    def fold_image_scores(
        self, row_ids: Sequence[str], scores: np.ndarray, queries: np.ndarray
    ) -> np.ndarray:
        """Raise text scores (rows × queries) of image rows to their calibrated image scores."""
        images = self.image_scores()
        return scores if images is None else images.fold_matrix(row_ids, scores, queries)

    def image_hits(
        self, granularity: str, query: np.ndarray, n: int, doc_ids: Sequence[str] | None
    ) -> list[Hit]:
        """Return image-layer hits at a granularity on the text scale ([] without images)."""
        images = self.image_scores()
        return [] if images is None else images.hits(granularity, query, n, doc_ids)


def open_index(
    index_dir: str | Path, chroma_url: str | None = None, scope: Sequence[str] | None = None
) -> CorpusIndex:
    """Return a location's shared CorpusIndex (in a run: its pin), or its view of `scope`."""
    shared: CorpusIndex = pinned(index_dir, chroma_url) or _shared_index(str(index_dir), chroma_url)
    return shared if scope is None else shared.scoped(scope)


def reopen_index(index_dir: str | Path, chroma_url: str | None = None) -> CorpusIndex:
    """Drop every shared index (a build replaced one) and open this location afresh."""
    _shared_index.cache_clear()
    return _shared_index(str(index_dir), chroma_url)


@lru_cache(maxsize=4)
def _shared_index(index_dir: str, chroma_url: str | None) -> CorpusIndex:
    return CorpusIndex.open(Path(index_dir), chroma_url)
