"""Search primitives: SCORE_vec(q, v; g) = max over v's descendants at layer g of sim(q, x(u)).

Documents can be scored at granularity document (their summary), component or
subcomponent; components at component or subcomponent. Scoring runs over the whole
corpus or only inside a given set of documents (a local hop), and never outside the
index's document scope (CorpusIndex.scoped: the single-document setting). With an image embedder,
images and regions also match by their image vectors (tools.image_scores).

`score_nodes` does the same with a search mode: dense (vectors), sparse (the BM25 layer
index, tools.sparse_index) or hybrid (both rankings fused by reciprocal rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import get_args

import numpy as np

from state.core import Granularity
from state.tuning import SearchMode
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.index import Hit
from tools.rank_fusion import RRF_K, fused_order
from tools.widening import ScoredNode, Target, layer_hits, widening

EXACT_DOCUMENTS = 1000
"""Up to this many documents, a document search scores every descendant from the vector
cache in one pass instead of asking Chroma: long filings made Chroma widen to MAX_HITS
over four queries (FiF's p50 on a set of 47 filings fell by more than half, same pages),
while the pass costs ~4.5 µs of Python per document (9,000 pages: +40 ms, so Chroma)."""
EXACT_LAYER_ROWS = 50_000
"""Up to this many vectors in a layer, a global document search at that granularity is
one product with the cached layer and a max per document's run of rows (VectorCache.
top_documents) instead of Chroma's widening: on 7,268 web pages 0.3 / 0.5 / 2.6 ms
against Chroma's 1.8 / 4.7 / 13.4 ms for 50 documents at document / component /
subcomponent granularity, and exact where HNSW missed a top-50 summary in 72 of 400
searches."""
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
FUSION_DEPTH = 50
"""How deep each ranking goes into a hybrid fusion: RRF needs more than the k shown, or an
item ranked 11th by both rankings could never surface above one ranked 1st by one."""


def score_vec(
    index: CorpusIndex,
    query: str | np.ndarray,
    target: Target,
    granularity: Granularity,
    k: int,
    doc_ids: Sequence[str] | None = None,
    meter: CostMeter | None = None,
    exact: bool = False,
) -> list[ScoredNode]:
    """Return the top-k documents or components by SCORE_vec at the given granularity.

    `exact` scores every row of a whole text layer (the vector cache) where Chroma's
    approximate search would answer.
    """
    if target == "component" and granularity == "document":
        raise ValueError("components are scored at component or subcomponent granularity")
    meter = meter or CostMeter()
    vector = _vector(index, query, meter)
    doc_ids = index.within(doc_ids)
    docs = doc_ids if doc_ids is not None else index.graph.documents()
    text_only = index.image_scores() is None  # image rows go through layer_hits' merge
    # exact: up to EXACT_DOCUMENTS documents, or the components of a document set that small
    few = (target == "document" or doc_ids is not None) and len(docs) <= EXACT_DOCUMENTS
    if text_only and few:
        return exact_search(index, vector, target, granularity, k, docs, meter)
    whole_layer = target == "document" and doc_ids is None
    if text_only and whole_layer and index.layers.count(granularity) <= EXACT_LAYER_ROWS:
        with meter.timed("vector"):
            top = index.cache.top_documents(granularity, vector, k)
        if top is not None:
            return [ScoredNode(doc, doc, "document", score, row) for doc, score, row in top]
    return widening(
        index,
        lambda n: layer_hits(index, vector, granularity, n, doc_ids, meter, exact),
        target,
        granularity,
        k,
        doc_ids,
    )


def exact_search(
    index: CorpusIndex,
    vector: np.ndarray,
    target: Target,
    granularity: Granularity,
    k: int,
    docs: Sequence[str],
    meter: CostMeter,
) -> list[ScoredNode]:
    """Return the top-k of `docs` (or of their components) by their best row, exactly.

    Every row at `granularity` below them is scored from the vector cache; ties go to the
    smaller id. A search inside a few documents (the single-document setting, a chosen
    document set) needs it for components: Chroma's filtered HNSW query is approximate
    and stops at MAX_HITS rows, which a long filing's 5,000 rows exceed.
    """
    parents = docs if target == "document" else [c for d in docs for c in index.graph.children(d)]
    with meter.timed("vector"):
        best = index.best_per_parent(granularity, vector, parents)
    found = []
    for node, (score, evidence) in sorted(best.items(), key=lambda i: (-i[1][0], i[0]))[:k]:
        view = index.graph.node(node)
        kind = "document" if target == "document" else view.kind
        found.append(ScoredNode(node, view.doc_id, kind, score, evidence))
    return found


def score_sparse(
    index: CorpusIndex,
    query: str,
    target: Target,
    granularity: Granularity,
    k: int,
    doc_ids: Sequence[str] | None = None,
    meter: CostMeter | None = None,
) -> list[ScoredNode]:
    """Return the top-k documents or components by their best BM25 descendant at a layer.

    The same max-over-descendants rule as `score_vec`, with BM25 scores (not cosines).
    """
    if target == "component" and granularity == "document":
        raise ValueError("components are scored at component or subcomponent granularity")
    meter = meter or CostMeter()
    sparse = index.sparse()
    doc_ids = index.within(doc_ids)

    def hits(n: int) -> tuple[list[Hit], bool]:
        with meter.timed("sparse"):
            found = sparse.query(granularity, query, n, doc_ids)
        return found, len(found) < n

    return widening(index, hits, target, granularity, k, doc_ids)


def score_nodes(
    index: CorpusIndex,
    query: str,
    target: Target,
    granularity: Granularity,
    k: int,
    mode: SearchMode = "dense",
    doc_ids: Sequence[str] | None = None,
    meter: CostMeter | None = None,
    rrf_k: int = RRF_K,
) -> list[ScoredNode]:
    """Return the top-k documents or components by dense, sparse or hybrid scoring.

    Hybrid fuses the dense and sparse rankings (each FUSION_DEPTH deep) by reciprocal rank
    with constant `rrf_k`; its scores are the fused RRF scores, and each node keeps the
    evidence of the ranking that placed it higher.
    """
    if mode == "dense":
        return score_vec(index, query, target, granularity, k, doc_ids, meter)
    if mode == "sparse":
        return score_sparse(index, query, target, granularity, k, doc_ids, meter)
    if mode != "hybrid":
        raise ValueError(f"unknown search mode {mode!r}; choose one of {', '.join(SEARCH_MODES)}")
    depth = max(k, FUSION_DEPTH)
    dense = score_vec(index, query, target, granularity, depth, doc_ids, meter)
    sparse = score_sparse(index, query, target, granularity, depth, doc_ids, meter)
    placed: dict[str, tuple[int, ScoredNode]] = {}
    for ranking in (dense, sparse):
        for rank, node in enumerate(ranking):
            if node.node_id not in placed or rank < placed[node.node_id][0]:
                placed[node.node_id] = (rank, node)
    rankings = [[n.node_id for n in dense], [n.node_id for n in sparse]]
    fused = fused_order(rankings, rrf_k)[:k]
    return [replace(placed[node_id][1], score=score) for node_id, score in fused]


def best_per_parent(
    index: CorpusIndex, query: np.ndarray, parents: Sequence[str], layer: str, meter: CostMeter
) -> dict[str, tuple[float, str]]:
    """Score each parent by its best child at `layer` (SCORE_vec, exact, from the vector cache).

    Images and regions count by the better of their text and image vectors
    (CorpusIndex.best_per_parent).
    """
    with meter.timed("vector"):
        return index.best_per_parent(layer, query, parents)  # type: ignore[arg-type]


def _vector(index: CorpusIndex, query: str | np.ndarray, meter: CostMeter) -> np.ndarray:
    if isinstance(query, np.ndarray):
        return query
    with meter.timed("embedding"):
        return index.embed_query(query)


def similarities(
    index: CorpusIndex,
    query: str | np.ndarray,
    granularity: Granularity,
    node_ids: Sequence[str],
    meter: CostMeter | None = None,
) -> dict[str, float]:
    """Return exact scores of the query for given nodes of one layer (see CorpusIndex)."""
    meter = meter or CostMeter()
    vector = _vector(index, query, meter)
    with meter.timed("vector"):
        return index.similarities(granularity, vector, node_ids)


def dense_search(
    index: CorpusIndex,
    question: str,
    granularity: Granularity = "subcomponent",
    k: int = 10,
    meter: CostMeter | None = None,
    mode: SearchMode = "dense",
    doc_ids: Sequence[str] | None = None,
    rrf_k: int = RRF_K,
    exact: bool = False,
) -> list[ScoredNode]:
    """Rank components for a question in one shot (the single-shot baselines).

    At document granularity the top-k documents are found by their summaries and their
    components ranked inside them, documents first; otherwise components are scored at
    component or subcomponent granularity over the whole corpus, or inside `doc_ids`.
    `mode` picks dense vectors (SCORE_vec), BM25 or their hybrid (see `score_nodes`);
    `exact` scores dense vectors exactly (see `score_vec`).
    """
    meter = meter or CostMeter()
    query: str | np.ndarray = question
    if mode == "dense":
        query = _vector(index, question, meter)

    def rank(
        target: Target, at: Granularity, n: int, docs: Sequence[str] | None
    ) -> list[ScoredNode]:
        if isinstance(query, np.ndarray):
            return score_vec(index, query, target, at, n, docs, meter, exact)
        return score_nodes(index, question, target, at, n, mode, docs, meter, rrf_k)

    if granularity != "document":
        return rank("component", granularity, k, doc_ids)
    documents = rank("document", "document", k, doc_ids)
    doc_rank = {doc.node_id: position for position, doc in enumerate(documents)}
    components = rank("component", "component", k * 4, list(doc_rank))
    components.sort(key=lambda node: (doc_rank[node.doc_id], -node.score))
    return components[:k]
