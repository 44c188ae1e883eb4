"""An in-memory copy of one layer's vectors for exact scoring of known node sets.

Global search goes to Chroma's ANN index; scoring the descendants of a handful of
documents (a local hop, a rerank, a late-interaction edge) is a small dense product,
done here after the layer is read once (from the build's numpy copy, tools.vector_mirror,
or from Chroma).

Given the layered graph, a layer's rows are kept in reading order (document, component,
subcomponent), so the descendants of any document or component are one run of rows:
`best_per_parent` scores them as matrix slices and picks each parent's best row with
numpy, with no per-node Python work (a filing has thousands of sentences and rows).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from state.corpus import LAYERS
from tools.gc_pause import gc_paused
from tools.index import ChromaLayers, IndexLayer
from tools.layered_graph import LayeredGraph
from tools.vector_mirror import chroma_vectors, in_reading_order

logger = logging.getLogger(__name__)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block's numpy products on one BLAS thread.

    A query's products (≤ 50k rows × 384) are memory-bound and gain nothing from a second
    OpenBLAS thread, which then spins after each call and takes the core the embedder and
    Chroma run on: on a shared 2-core machine, FiF p50 133 → 71 ms and dense
    26 → 16 ms (dense runs between FiF's questions). The products are the same either way.
    The limit is set through each library's own calls: threadpoolctl's `limit` reads every
    library's whole description on entry, ~30 µs of a product that takes ~100.
    """
    libraries = _blas().lib_controllers
    before = [library.num_threads for library in libraries]
    for library, threads in zip(libraries, before, strict=True):
        if threads != 1:
            library.set_num_threads(1)
    try:
        yield
    finally:
        for library, threads in zip(libraries, before, strict=True):
            if threads != 1:
                library.set_num_threads(threads)


@lru_cache(maxsize=1)
def _blas() -> Any:
    """Return threadpoolctl's handle on the BLAS libraries loaded (numpy's, at least)."""
    return ThreadpoolController().select(user_api="blas")


class VectorCache:
    """Lazily load each layer's (ids, matrix) and answer exact similarities."""

    def __init__(
        self,
        layers: ChromaLayers,
        graph: LayeredGraph | None = None,
        read: Callable[[IndexLayer], tuple[list[str], np.ndarray]] | None = None,
    ) -> None:
        self.layers = layers
        self.graph = graph
        self._read = read or (lambda layer: chroma_vectors(layers, layer))
        """Where a layer's (ids, vectors) come from, in Chroma's order: Chroma by default."""
        self._rows: dict[str, dict[str, int]] = {}
        self._ids: dict[str, list[str]] = {}
        self._matrix: dict[str, np.ndarray] = {}
        self._spans: dict[str, dict[str, tuple[int, int]]] = {}
        """layer -> the run of its rows under each node of that layer or above."""
        self._doc_runs: dict[str, tuple[list[str], np.ndarray, np.ndarray] | None] = {}
        """layer -> the documents with rows there, with their runs' starts and ends."""
        self._lock = threading.Lock()

    def _load(self, layer: IndexLayer) -> None:
        with self._lock:
            if layer in self._matrix:
                return
            with gc_paused():
                ids, matrix = self._read(layer)
                if self.graph is not None and ids:
                    ids, matrix = in_reading_order(ids, matrix, self.graph.reading_order())
                self._rows[layer] = {node_id: row for row, node_id in enumerate(ids)}
            self._ids[layer] = ids
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
        with one_blas_thread():
            scores = picked @ np.asarray(query, dtype=np.float32)
        return dict(zip(present, scores.tolist(), strict=True))

    def top_documents(
        self, layer: IndexLayer, query: np.ndarray, k: int
    ) -> list[tuple[str, float, str]] | None:
        """Return the k documents whose best row in `layer` is nearest the query, exactly.

        Each is (document, best cosine, that row's id), best first; ties go to the smaller
        document id, and inside a document to the first row in reading order. One product
        over the layer and a max per document's run of rows, with Python work only for the
        k returned. None without the graph (rows in no reading order): ask Chroma then.
        """
        if self.graph is None:
            return None
        self._load(layer)
        runs = self._document_runs(layer)
        if runs is None:
            return None
        docs, starts, ends = runs
        if k <= 0 or not docs:
            return []
        with one_blas_thread():
            scores = self._matrix[layer][: ends[-1]] @ np.asarray(query, dtype=np.float32)
        best = np.maximum.reduceat(scores, starts)
        if k < len(docs):  # every document tied with the k-th stays in, for the id tie-break
            chosen = np.flatnonzero(best >= np.partition(best, len(docs) - k)[len(docs) - k])
        else:
            chosen = np.arange(len(docs))
        ranked = sorted(chosen.tolist(), key=lambda i: (-best[i], docs[i]))[:k]
        ids = self._ids[layer]
        return [
            (docs[i], float(best[i]), ids[starts[i] + int(np.argmax(scores[starts[i] : ends[i]]))])
            for i in ranked
        ]

    def nearest(self, layer: IndexLayer, query: np.ndarray, n: int) -> list[tuple[str, float]]:
        """Return the n rows of a layer nearest the query, exactly: (id, cosine), best first.

        Ties go to the smaller id. One product over the layer, as Chroma's HNSW answers
        approximately.
        """
        self._load(layer)
        matrix, ids = self._matrix[layer], self._ids[layer]
        n = min(n, len(ids))
        if n <= 0:
            return []
        with one_blas_thread():
            scores = matrix @ np.asarray(query, dtype=np.float32)
        top = np.argpartition(-scores, n - 1)[:n] if n < len(ids) else np.arange(len(ids))
        ranked = sorted(top.tolist(), key=lambda row: (-scores[row], ids[row]))
        return [(ids[row], float(scores[row])) for row in ranked]

    def _document_runs(self, layer: IndexLayer) -> tuple[list[str], np.ndarray, np.ndarray] | None:
        """Return the documents with rows in `layer` and their runs, in row order.

        Rows are in reading order, so the runs tile the layer's first rows: every row
        before the last run's end belongs to exactly one document (None if they do not).
        """
        if layer not in self._doc_runs:
            runs = self._parent_spans(layer, self.graph.documents() if self.graph else [])
            ordered = sorted(runs.items(), key=lambda item: item[1][0])
            starts = np.array([start for _, (start, _) in ordered], dtype=np.int64)
            ends = np.array([end for _, (_, end) in ordered], dtype=np.int64)
            tiled = not ordered or (starts[0] == 0 and np.all(starts[1:] == ends[:-1]))
            if not tiled:
                logger.warning("%s rows of documents interleave; searching through Chroma", layer)
            self._doc_runs[layer] = ([d for d, _ in ordered], starts, ends) if tiled else None
        return self._doc_runs[layer]

    def matrix(self, layer: IndexLayer, node_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Return (present ids, their vectors) for late-interaction style scoring."""
        self._load(layer)
        rows = self._rows[layer]
        present = [node_id for node_id in node_ids if node_id in rows]
        return present, self._matrix[layer][[rows[node_id] for node_id in present]]

    def best_per_parent(
        self, layer: IndexLayer, query: np.ndarray, parents: Sequence[str]
    ) -> dict[str, tuple[float, str]]:
        """Return each parent's best-scoring descendant in `layer` as (cosine, node id).

        A parent is a document or a component (or a node of `layer` itself, its own best);
        parents without a vector below them are omitted. Ties go to the first descendant in
        reading order. Needs the graph (see the module docstring).
        """
        scored = self._scored_runs(layer, np.asarray(query, dtype=np.float32), parents)
        if scored is None:
            return {}
        names, starts, offsets, scores = scored
        lengths = np.diff(np.append(offsets, len(scores)))
        best = np.maximum.reduceat(scores, offsets)
        segment = np.repeat(np.arange(len(names)), lengths)
        top = np.flatnonzero(scores == best[segment])
        first = top[np.unique(segment[top], return_index=True)[1]]  # first best row per parent
        ids = self._ids[layer]
        rows = (starts + first - offsets).tolist()
        evidence = [ids[row] for row in rows]
        return dict(zip(names, zip(best.tolist(), evidence, strict=True), strict=True))

    def best_per_parent_of_each(
        self, layer: IndexLayer, queries: np.ndarray, parents: Sequence[str]
    ) -> tuple[list[str], np.ndarray]:
        """Return the parents with rows in `layer` and their best cosine to each query.

        (parents, parents × queries matrix): `best_per_parent`'s scores for several queries
        in one product over the parents' rows, without the evidence ids.
        """
        scored = self._scored_runs(layer, np.asarray(queries, dtype=np.float32).T, parents)
        if scored is None:
            return [], np.zeros((0, len(queries)), dtype=np.float32)
        names, _, offsets, scores = scored
        return names, np.maximum.reduceat(scores, offsets, axis=0)

    def _scored_runs(
        self, layer: IndexLayer, query: np.ndarray, parents: Sequence[str]
    ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None:
        """Score the rows under each parent, parents in reading order (None: no rows).

        Returns (parents, their first rows, their offsets in the scores, the scores); `query`
        is one vector or a matrix of them as columns (see `_run_scores`).
        """
        if self.graph is None:
            raise ValueError("best_per_parent needs the layered graph: VectorCache(layers, graph)")
        self._load(layer)
        spans = self._parent_spans(layer, parents)
        if not spans:
            return None
        names = sorted(spans, key=lambda name: spans[name][0])  # reading order (stable)
        starts = np.array([spans[name][0] for name in names], dtype=np.int64)
        ends = np.array([spans[name][1] for name in names], dtype=np.int64)
        with one_blas_thread():
            scores = _run_scores(self._matrix[layer], query, starts, ends)
        return names, starts, np.concatenate(([0], np.cumsum(ends - starts)[:-1])), scores

    def _parent_spans(
        self, layer: IndexLayer, parents: Sequence[str]
    ) -> dict[str, tuple[int, int]]:
        """Return the run of `layer` rows under each known parent (a document or component)."""
        if self.graph is None or layer not in LAYERS:
            return {}
        runs = self._spans.get(layer)
        if runs is None:
            with self._lock, gc_paused():
                runs = self._spans[layer] = _runs(self.graph, self._ids[layer], layer)
        known = runs.get
        return {parent: run for parent in parents if (run := known(parent)) is not None}


def _runs(graph: LayeredGraph, ids: Sequence[str], layer: str) -> dict[str, tuple[int, int]]:
    """Return the run [start, end) of rows in `ids` under each node of `layer` and above.

    Rows outside the reading order (no document contains them) sort last and belong to
    no run, so a run never spans another parent's rows.
    """
    order = graph.reading_order()
    runs: dict[str, tuple[int, int]] = {}
    for row, node in enumerate(ids):
        if node not in order:
            continue
        for depth in range(LAYERS.index(layer) + 1):  # type: ignore[arg-type]
            ancestor = graph.ancestor(node, depth)
            runs[ancestor] = (runs.get(ancestor, (row, row))[0], row + 1)
    return runs


def _run_scores(
    matrix: np.ndarray, query: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray:
    """Return the scores of the rows of sorted spans [starts, ends), concatenated in order.

    `query` is one vector (scores: rows) or a matrix of them as columns (rows × queries).

    Adjacent spans (the components of one document) merge into one slice, so a product
    runs per run of rows, not per parent.
    """
    breaks = np.flatnonzero(starts[1:] != ends[:-1]) + 1
    first = np.concatenate(([0], breaks))
    last = np.concatenate((breaks - 1, [len(starts) - 1]))
    runs = zip(starts[first].tolist(), ends[last].tolist(), strict=True)
    return np.concatenate([matrix[start:end] @ query for start, end in runs])
