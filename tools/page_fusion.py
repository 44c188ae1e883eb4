"""A system's component ranking re-read as pages and fused with the filing page ranking.

Users cite a filing by its pages. A system (FiF, the extraction loop) ends with a ranking
of components; its page order (each component's pages, first occurrence kept) joins the
page ranking of `tools.page_ranking` by weighted reciprocal rank fusion, and the result is
written back as components: for each page in fused order, the system's own components on
that page first, else the page's best component. Only filings are re-read this way: the
documents must carry a filing identity (`tools.filing_catalog`), so web pages and other
PDFs keep the system's own order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from state.core import Ranked, ranked_entry
from state.settings import RunSettings
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.errors import ConfigError
from tools.filing_catalog import filings_of, route_question
from tools.filing_routing import FilingRoute
from tools.page_ranking import RRF_K, PageWeights, rank_pages

PAGE_DEPTH = 40
"""How many of the page ranking's pages join the fusion."""


@dataclass(frozen=True)
class PageFusion:
    """How a system's pages and the page ranking are weighed against each other."""

    system: float = 0.0
    """Weight of the system's own page order. 0: the page ranking orders the pages and the
    system only picks the components that stand for them (each held-out company fold's
    round chose 0 for FiF and the extraction loop, docs/filings.md)."""
    pages: float = 1.0
    """Weight of the page ranking's order."""


def filing_documents(
    index: CorpusIndex, route: FilingRoute | None, ranking: Sequence[str]
) -> list[str]:
    """Return the filings to rank pages of: the scope, else the best routed, else the ranking's.

    Unscoped and unrouted, the ranking's filings count only when the system ranked a filing
    first: in a store that mixes filings with other documents, a filing further down must
    not take the top places from the documents the system found best.
    """
    filings = filings_of(index.graph)
    if index.scope is not None:  # a set: in the route's order, then by id (ties stay stable)
        ordered = dict.fromkeys([*(route.documents if route else ()), *sorted(index.scope)])
        return [doc for doc in ordered if doc in index.scope and doc in filings]
    if route is not None:
        return list(route.best())
    docs = [index.graph.node(c).doc_id for c in ranking if c in index.graph]
    if not docs or docs[0] not in filings:
        return []
    return [doc for doc in dict.fromkeys(docs) if doc in filings]


def page_first(
    index: CorpusIndex,
    question: str,
    ranking: Sequence[str],
    k: int,
    weights: PageWeights | None = None,
    fusion: PageFusion | None = None,
    meter: CostMeter | None = None,
) -> list[str]:
    """Return the ranking's components reordered page by page (unchanged outside filings)."""
    route = route_question(index.graph, question)
    docs = filing_documents(index, route, ranking)
    if not docs:
        return list(ranking)
    fusion = fusion or PageFusion()
    ranked = rank_pages(index, question, docs, route, weights, meter)[:PAGE_DEPTH]
    best = {page.key: page.component for page in ranked}
    own: dict[str, list[str]] = {}
    for component in ranking:
        for key in index.graph.page_keys(component):
            own.setdefault(key, []).append(component)
    system_pages = list(own)
    order = weighted_order([(system_pages, fusion.system), (list(best), fusion.pages)])
    out: list[str] = []
    for key, _ in order:
        for component in own.get(key) or [best[key]]:
            if component and component not in out:
                out.append(component)
        if len(out) >= k:
            break
    return out[:k]


def weighted_order(rankings: Sequence[tuple[Sequence[str], float]]) -> list[tuple[str, float]]:
    """Return items by weighted reciprocal-rank score (RRF_K), best first; ties by id."""
    scores: dict[str, float] = {}
    for ranking, weight in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + weight / (RRF_K + rank + 1)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def page_first_ranked(
    index: CorpusIndex, question: str, ranking: Sequence[Ranked], context: RunSettings
) -> list[Ranked]:
    """Return a node's final ranking reordered page by page when RunSettings.page_ranking is on."""
    if not context.page_ranking or not ranking:
        return list(ranking)
    settings = dict(context.page_weights)
    unknown = set(settings) - {*PageWeights().views(), "system"}
    if unknown:
        known = ", ".join([*PageWeights().views(), "system"])
        raise ConfigError(f"page_weights: unknown view(s) {sorted(unknown)}; use {known}")
    fusion = PageFusion(system=settings.pop("system", PageFusion.system))
    order = page_first(
        index,
        question,
        [r["component_id"] for r in ranking],
        context.top_k,
        PageWeights(**settings),
        fusion,
    )
    if order == [r["component_id"] for r in ranking]:
        return list(ranking)
    out = []
    for position, component in enumerate(order):
        view = index.graph.node(component)
        out.append(ranked_entry(component, view.doc_id, view.kind, round(1.0 / (1 + position), 6)))
    return out
