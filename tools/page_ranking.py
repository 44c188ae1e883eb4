"""Rank a filing's pages for a question: best chunk and passage, words, lines, periods, statement.

Each page is scored on seven views, each turned into a ranking of the candidate pages, and
the rankings join by weighted reciprocal rank fusion (only pages with a positive value in a
view are ranked in it):

- chunk: the best cosine of the question to a sentence or table row printed on the page
  (SCORE_vec at subcomponent granularity, from the stored vectors);
- passage: the best cosine of the question to a paragraph or table on the page (component
  granularity: a passage's context where a sentence alone says too little);
- words: BM25 of the question against the page text (titles, paragraphs, table cells);
- lines: the question's metric input lines (`tools.metric_terms`) and words found among the
  row labels of the page's tables;
- periods: the question's years among the page's column headers and titles;
- statement: the page prints the statement the question's metric lives on
  (`tools.statements`), titled as that statement (1) or only listing its line items (0.5);
- filing: the page belongs to the filing the question's period and form fit best
  (`tools.filing_routing`).

The weights are `PageWeights`; their values and the folds they were chosen on are in
docs/filings.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache

import numpy as np

from state.core import Granularity
from state.ids import parent_of_subcomponent
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.filing_pages import FilingPage, StoredWords, document_pages, page_words
from tools.filing_query import read_question
from tools.filing_routing import FilingRoute
from tools.layered_graph import LayeredGraph
from tools.metric_terms import metric_inputs
from tools.search import similarities
from tools.sparse_index import analyze, bm25_within_terms
from tools.statements import statements_asked
from tools.word_stems import QUERY_STOPWORDS

RRF_K = 20
"""Reciprocal-rank constant of the page fusion: a page's top ranks weigh, its tail fades."""


@dataclass(frozen=True)
class PageWeights:
    """How much each view of a page counts in its fused score (0 turns a view off).

    The defaults are the weights two of the three company-fold rounds chose on their two
    tuning folds (docs/filings.md). Periods are off: zeroing it lost no held-out hits in any
    round; tuning may still try it.
    """

    chunk: float = 1.0
    words: float = 1.0
    lines: float = 0.5
    periods: float = 0.0
    statement: float = 3.0
    filing: float = 1.0
    passage: float = 2.0

    def views(self) -> tuple[str, ...]:
        """Return the names of the views."""
        return tuple(f.name for f in fields(self))


@dataclass(frozen=True)
class RankedPage:
    """A page with its fused score and its best component (the one holding its best chunk)."""

    key: str
    doc_id: str
    score: float
    component: str


@dataclass(frozen=True)
class PageViews:
    """The candidate pages of a question and each view's value per page (before weighting)."""

    pages: list[FilingPage]
    values: dict[str, np.ndarray]
    best_chunk: list[str]
    reciprocal: dict[str, np.ndarray] = field(default_factory=dict)
    """Each view's reciprocal-rank scores, computed once (a weight set only re-weighs them)."""

    def __post_init__(self) -> None:
        """Turn each view's values into its reciprocal-rank scores."""
        self.reciprocal.update({view: _rrf(values) for view, values in self.values.items()})


ChunkScores = Callable[[list[str], Granularity], dict[str, float]]
"""Scores of the question against given node ids of one layer (their stored vectors)."""


def page_views(
    graph: LayeredGraph,
    question: str,
    doc_ids: Sequence[str],
    route: FilingRoute | None,
    chunk_scores: ChunkScores,
    stored: StoredWords | None = None,
) -> PageViews:
    """Return every view's value for each page of the given documents.

    `stored`: the page words the build stored (`ComponentTerms.page`), which spare the
    words view analysing page texts.
    """
    pages = [page for doc in doc_ids for page in document_pages(graph, doc)]
    chunk, best_chunk = _chunk_view(chunk_scores, pages)
    values = {
        "chunk": chunk,
        "passage": _passage_view(chunk_scores, pages),
        "words": _words_view(question, pages, stored),
        "lines": _lines_view(question, pages),
        "periods": _periods_view(question, pages),
        "statement": _statement_view(question, pages),
        "filing": _filing_view(route, pages),
    }
    return PageViews(pages, values, best_chunk)


def fuse_views(
    views: PageViews, weights: PageWeights | None = None, limit: int | None = None
) -> list[RankedPage]:
    """Return the pages ranked by the weighted fusion of their views, best first (top limit)."""
    weights = weights or PageWeights()
    pages = views.pages
    fused = np.zeros(len(pages))
    for view in weights.views():
        weight = getattr(weights, view)
        if weight:
            fused += weight * views.reciprocal[view]
    # best fused first, then best chunk, then reading order (documents as given, page order)
    order = np.lexsort((np.arange(len(pages)), -views.values["chunk"], -fused))
    return [
        RankedPage(
            pages[i].key,
            pages[i].doc_id,
            float(fused[i]),
            _component(pages[i], views.best_chunk[i]),
        )
        for i in order[:limit]
    ]


def rank_pages(
    index: CorpusIndex,
    question: str,
    doc_ids: Sequence[str],
    route: FilingRoute | None = None,
    weights: PageWeights | None = None,
    meter: CostMeter | None = None,
) -> list[RankedPage]:
    """Return the pages of the given documents ranked for the question, best first."""
    meter = meter or CostMeter()

    def scores(ids: list[str], granularity: Granularity) -> dict[str, float]:
        return similarities(index, question, granularity, ids, meter) if ids else {}

    terms = index.component_terms()
    stored = terms.page if terms is not None else None
    views = page_views(index.graph, question, doc_ids, route, scores, stored)
    return fuse_views(views, weights)


def _rrf(values: np.ndarray) -> np.ndarray:
    """Turn a view's values into reciprocal-rank scores (pages without value score 0).

    A page's rank is the number of pages with a higher value, so the pages of a yes/no view
    (in the best filing, on the asked statement) share one rank.
    """
    ranks = np.searchsorted(np.sort(-values), -values, side="left")  # ties share a rank
    return np.where(values > 0, 1.0 / (RRF_K + ranks + 1), 0.0)


def _chunk_view(chunk_scores: ChunkScores, pages: list[FilingPage]) -> tuple[np.ndarray, list[str]]:
    return _best_view(chunk_scores, pages, "subcomponent")


def _passage_view(chunk_scores: ChunkScores, pages: list[FilingPage]) -> np.ndarray:
    return _best_view(chunk_scores, pages, "component")[0]


def _best_view(
    chunk_scores: ChunkScores, pages: list[FilingPage], layer: Granularity
) -> tuple[np.ndarray, list[str]]:
    """Return each page's best score among its chunks or components, and the node with it.

    A page none of whose nodes scores above 0 scores 0, with '' for its node.
    """
    members = [page.chunks if layer == "subcomponent" else page.components for page in pages]
    scores = chunk_scores(list(dict.fromkeys(n for nodes in members for n in nodes)), layer)
    best = np.zeros(len(pages))
    chosen = [""] * len(pages)
    for i, nodes in enumerate(members):
        for node in nodes:
            score = scores.get(node, 0.0)
            if score > best[i]:
                best[i], chosen[i] = score, node
    return best, chosen


def _component(page: FilingPage, chunk: str) -> str:
    if chunk:
        return parent_of_subcomponent(chunk)
    return page.components[0] if page.components else ""


def _words_view(question: str, pages: list[FilingPage], stored: StoredWords | None) -> np.ndarray:
    query = analyze([question], QUERY_STOPWORDS)[0]
    return np.array(bm25_within_terms(query, page_words(pages, stored)))


@lru_cache(maxsize=65536)
def _label_terms(label: str) -> frozenset[str]:
    return frozenset(analyze([label], QUERY_STOPWORDS)[0])


def _lines_view(question: str, pages: list[FilingPage]) -> np.ndarray:
    lines = [_label_terms(line) for line in metric_inputs(question)]
    asked = _label_terms(question)
    values = np.zeros(len(pages))
    for i, page in enumerate(pages):
        labels = [_label_terms(label) for label in page.labels]
        if not labels:
            continue
        found = sum(1 for line in lines if line and any(line <= label for label in labels))
        words = frozenset().union(*labels) & asked
        values[i] = found + len(words) / (len(asked) or 1)
    return values


def _periods_view(question: str, pages: list[FilingPage]) -> np.ndarray:
    years = read_question(question).years
    if not years:
        return np.zeros(len(pages))
    patterns = [re.compile(rf"\b{year}\b") for year in years]
    values = np.zeros(len(pages))
    for i, page in enumerate(pages):
        heads = " ".join([*page.headers, *page.titles])
        values[i] = sum(1 for pattern in patterns if pattern.search(heads)) / len(patterns)
    return values


def _statement_view(question: str, pages: list[FilingPage]) -> np.ndarray:
    """1 for a page titled as an asked statement, 0.5 for one that only lists its line items."""
    asked = statements_asked(question)
    return np.array(
        [
            (1.0 if page.titled else 0.5) if page.statement and page.statement in asked else 0.0
            for page in pages
        ]
    )


def _filing_view(route: FilingRoute | None, pages: list[FilingPage]) -> np.ndarray:
    if route is None:
        return np.zeros(len(pages))
    best = set(route.best())
    return np.array([1.0 if page.doc_id in best else 0.0 for page in pages])
