"""Which sections a shopping item should fetch: hybrid hits mapped onto the section tree.

The item is searched with the shared hybrid search (dense + BM25 over subcomponents,
fused by reciprocal rank; `tools.search.score_nodes`), inside the run's documents (the
first search picks them from its hits and the document summaries) and never outside the
index's document scope; in a chosen filing a metric's input lines are searched too
(`seed_hits`).
Each hit votes for the section that holds its component. Two more rankings of every
section of those documents join by reciprocal rank fusion: BM25 of the item against the
section's heading and opening words (`tools.sparse_index.bm25_within`), and its best
component's stored vector (SCORE_vec at component granularity). Embedding every heading
at question time would cost seconds per filing on a CPU, so the vector side reads the
vectors the index already holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from state.extraction_state import ExtractionContext
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.metric_terms import lines_in_filing
from tools.rank_fusion import fused_order
from tools.search import ScoredNode, score_nodes, similarities
from tools.section_text import SectionRef
from tools.section_tree import SectionTree, section_summary, section_tree
from tools.sparse_index import bm25_within

HEADING_DEPTH = 60
"""How deep the heading and vector rankings of sections go into the fusion."""


@dataclass(frozen=True)
class SectionCandidate(SectionRef):
    """A section the item might be found in, with its fused score and the hits inside it."""

    score: float
    hits: int


@dataclass(frozen=True)
class SectionSearch:
    """What one item's search found: its hits, the documents, and sections best first."""

    item: str
    hits: list[ScoredNode]
    documents: list[str]
    candidates: list[SectionCandidate]


def hit_documents(hits: Sequence[ScoredNode]) -> list[str]:
    """Return the documents the hits point to, most (summed fused scores) first."""
    weight: dict[str, float] = {}
    for hit in hits:
        weight[hit.doc_id] = weight.get(hit.doc_id, 0.0) + hit.score
    return sorted(weight, key=lambda doc: (-weight[doc], doc))


def focus_documents(
    index: CorpusIndex, item: str, hits: Sequence[ScoredNode], limit: int, meter: CostMeter
) -> list[str]:
    """Return the documents the loop works in: where the hits point, fused with the summaries.

    A document's summary (title, filer, period, section headings) names the filing a
    question is about better than its scattered passages; the item's hybrid search over
    the summary layer joins the hits' documents by reciprocal rank fusion.
    """
    summaries = score_nodes(index, item, "document", "document", limit * 5, "hybrid", None, meter)
    rankings = [hit_documents(hits), [doc.node_id for doc in summaries]]
    return [doc for doc, _ in fused_order(rankings)][:limit]


def hit_sections(trees: dict[str, SectionTree], hits: Sequence[ScoredNode]) -> list[str]:
    """Return the sections holding the hits' components, in the order of their best hit."""
    found = [
        trees[hit.doc_id].of_component[hit.node_id]
        for hit in hits
        if hit.doc_id in trees and hit.node_id in trees[hit.doc_id].of_component
    ]
    return list(dict.fromkeys(found))


def heading_ranking(index: CorpusIndex, trees: dict[str, SectionTree], item: str) -> list[str]:
    """Rank every section by BM25 of the item against its heading and opening words."""
    sections = [s for tree in trees.values() for s in tree.sections()]
    texts = [section_summary(index.graph, trees[doc_of(s, trees)], s) for s in sections]
    scores = bm25_within(item, texts)
    ranked = sorted(
        (pair for pair in zip(scores, sections, strict=True) if pair[0] > 0), key=lambda p: -p[0]
    )
    return [section for _, section in ranked[:HEADING_DEPTH]]


def vector_ranking(
    index: CorpusIndex, trees: dict[str, SectionTree], item: str, meter: CostMeter
) -> list[str]:
    """Rank sections by their best own component's stored vector (SCORE_vec, component)."""
    owner = {c: s for tree in trees.values() for c, s in tree.of_component.items()}
    scores = similarities(index, item, "component", list(owner), meter)
    best: dict[str, float] = {}
    for component, score in scores.items():
        section = owner[component]
        best[section] = max(score, best.get(section, score))
    return sorted(best, key=lambda s: (-best[s], s))[:HEADING_DEPTH]


def doc_of(section: str, trees: dict[str, SectionTree]) -> str:
    """Return the document whose tree holds a section."""
    return next(doc for doc, tree in trees.items() if section in tree.nodes)


def seed_hits(
    index: CorpusIndex,
    item: str,
    documents: Sequence[str] | None,
    context: ExtractionContext,
    meter: CostMeter,
) -> list[ScoredNode]:
    """Return the item's hybrid hits; inside a chosen filing, fused with its metric lines'.

    An item naming a metric also searches each statement line it is computed from
    (`tools.metric_terms.lines_in_filing`: inventory turnover -> cost of sales,
    inventories), and the rankings join by reciprocal rank fusion, the item's own counted
    twice.
    """

    def search(text: str) -> list[ScoredNode]:
        return score_nodes(
            index, text, "component", "subcomponent", context.seed_hits, "hybrid", documents, meter
        )

    hits = search(item)
    lines = lines_in_filing(index, item)
    if not lines:
        return hits
    runs = [hits, hits, *(search(line) for line in lines)]
    found = {hit.node_id: hit for run in reversed(runs) for hit in run}  # the item's hit wins
    fused = fused_order([[hit.node_id for hit in run] for run in runs])
    return [found[node] for node, _ in fused][: context.seed_hits]


def search_sections(
    index: CorpusIndex,
    item: str,
    documents: Sequence[str] | None,
    context: ExtractionContext,
    meter: CostMeter,
) -> SectionSearch:
    """Search the item and rank the sections of the run's documents for it."""
    hits = seed_hits(index, item, documents, context, meter)
    chosen = list(documents or focus_documents(index, item, hits, context.max_documents, meter))
    trees = {doc: section_tree(index.graph, doc) for doc in chosen}
    rankings = [  # the hits count twice: the loop starts from them (seed 002)
        hit_sections(trees, hits),
        hit_sections(trees, hits),
        heading_ranking(index, trees, item),
        vector_ranking(index, trees, item, meter),
    ]
    votes: dict[str, int] = {}
    for hit in hits:
        if hit.doc_id in trees and (section := trees[hit.doc_id].of_component.get(hit.node_id)):
            votes[section] = votes.get(section, 0) + 1
    candidates = []
    for section, score in fused_order(rankings):
        tree = trees[doc_of(section, trees)]
        candidates.append(
            SectionCandidate(
                section,
                tree.doc_id,
                tree.heading(section),
                tree.spans.get(section),
                score,
                votes.get(section, 0),
            )
        )
    return SectionSearch(item, hits, chosen, candidates)
