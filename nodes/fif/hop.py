"""Following links from an anchor: which linking node fits, and what is left to find.

A hop starts from the anchor's components and their subcomponents that carry links
(table rows, sentences, the components themselves), and leads back from the top anchors to
the pages whose rows or sentences link to them (a passage found before the table naming
it). Each linking node is scored by its vector match to the subquery plus a lexical match
of its own words — a row that repeats the question's rare values ("Middle Tennessee",
"2-1") is the row the question is about.
The documents it links to are then ranked by the *residual* subquery: the words the
anchor's components do not already contain, i.e. what the hop is for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from nodes.core.lexical import content_words, covered_terms
from nodes.core.question import analyze_question
from nodes.core.question_rules import rule_scores, rule_weights
from state.tuning import FiFTuning
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import neighbors, outgoing_links, referrers
from tools.layered_graph import LayeredGraph
from tools.sparse_index import analyze, bm25_within
from tools.word_stems import QUERY_STOPWORDS

REFERRED_ANCHORS = 3
"""How many of a hop's top anchors may lead back to the pages that link to them (as many
as the evaluator looks ahead from, nodes.fif.judging.LOOKAHEAD_COMPONENTS)."""


@dataclass(frozen=True)
class LinkHop:
    """What the document stage learned while following links, for the component stage."""

    via: dict[str, str]
    """Linked document -> the node whose link reached it."""
    prior: dict[str, float]
    """Linked document -> how far its linking node trails the best one (≤ 0), times the
    link prior (FiFTuning.link_prior): what ranking a reached document adds to its fit."""
    residual: np.ndarray
    """Embedding of the subquery's words the anchor did not cover."""


def residual_text(subquery: str, covered: AbstractSet[str]) -> str:
    """Return the subquery's content words whose terms are not all covered (or the subquery).

    `covered` holds the evidence's terms (`nodes.core.lexical.covered_terms`).
    """
    words = content_words(subquery)
    stemmed = analyze(words, QUERY_STOPWORDS)  # one analyzer call for all the words
    rest = [word for word, stems in zip(words, stemmed, strict=True) if not set(stems) <= covered]
    return " ".join(rest) or subquery


def lexical_scores(index: CorpusIndex, subquery: str, nodes: Sequence[str]) -> dict[str, float]:
    """Score nodes by BM25 of the subquery among just these nodes (IDF within the set)."""
    texts = [index.graph.node(node).text for node in nodes]
    return dict(zip(nodes, bm25_within(subquery, texts), strict=True))


def link_hop(
    index: CorpusIndex,
    subquery: str,
    query: np.ndarray,
    components: Sequence[str],
    docs: Sequence[str],
    meter: CostMeter,
    tuning: FiFTuning,
) -> LinkHop | None:
    """Score the linking nodes under the anchor components and the documents they reach."""
    graph = index.graph
    linked = reachable(graph, docs, components)
    if not linked:
        return None
    sources = list(dict.fromkeys(s for found in linked.values() for s in found))
    weights = rule_weights(tuning)
    score = row_scores(index, subquery, query, sources, meter, tuning.lexical_weight, weights)
    via = {doc: best_linking_node(graph, found, score) for doc, found in linked.items()}
    top = max(score[source] for source in via.values())
    prior = {doc: tuning.link_prior * (score[source] - top) for doc, source in via.items()}
    residual = hop_residual(index, subquery, components)
    with meter.timed("embedding"):
        residual_vector = index.embed_query(residual)
    return LinkHop(via, prior, residual_vector)


def reachable(
    graph: LayeredGraph, docs: Sequence[str], components: Sequence[str]
) -> dict[str, list[str]]:
    """Map each document a link hop from these anchors reaches to the nodes that link it.

    The links leaving the components and their parts, and the pages that link to the
    top anchors (`REFERRED_ANCHORS`): a passage is often found before the table whose row
    names it.
    """
    origin = list(components) + [sub for c in components for sub in graph.children(c)]
    linked = neighbors(graph, docs, [n for n in origin if outgoing_links(graph, n)])
    start = set(docs)
    top = components[:REFERRED_ANCHORS]
    for doc, found in referrers(graph, [graph.node(c).doc_id for c in top]).items():
        if doc not in start:
            linked.setdefault(doc, found)
    return linked


def parts_first(graph: LayeredGraph, nodes: Sequence[str]) -> list[str]:
    """Return the subcomponents among linking nodes, or all of them when there are none.

    A table carries the links of all its rows, and its own text matches the question
    better than any one row: the row that holds the link says which record a hop is about.
    """
    parts = [node for node in nodes if graph.node(node).layer == 2]
    return parts or list(nodes)


def best_linking_node(graph: LayeredGraph, found: Sequence[str], score: Mapping[str, float]) -> str:
    """Return the best-scoring of the nodes linking to one document, parts before wholes."""
    return max(parts_first(graph, found), key=lambda node: score[node])


def hop_residual(index: CorpusIndex, subquery: str, components: Sequence[str]) -> str:
    """Return what a link hop from these anchor components asks of the pages they link to."""
    return residual_text(subquery, covered_terms(index, components))


def row_scores(
    index: CorpusIndex,
    text: str,
    vector: np.ndarray,
    nodes: Sequence[str],
    meter: CostMeter,
    lexical_weight: float,
    weights: Mapping[str, float],
) -> dict[str, float]:
    """Score the rows or sentences a link leaves from, or a bridge is read from.

    Cosine plus `lexical_weight` times their BM25 among `nodes`, plus the question rules'
    `weights` for the nodes a rule singles out in the text's analysis (the table rows
    holding the value its superlative picks: "the least capacity";
    `nodes.core.question_rules`).
    """
    cosine = node_similarities(index, vector, nodes, meter)
    lexical = lexical_scores(index, text, nodes)
    score = {node: cosine.get(node, -1.0) + lexical_weight * lexical[node] for node in nodes}
    for node, bonus in rule_scores(index.graph, analyze_question(text), nodes, weights).items():
        score[node] += bonus
    return score


def node_similarities(
    index: CorpusIndex, query: np.ndarray, nodes: Iterable[str], meter: CostMeter
) -> dict[str, float]:
    """Return sim(q, node) for components and subcomponents (CorpusIndex.similarities)."""
    by_layer: dict[str, list[str]] = {"component": [], "subcomponent": []}
    for node in nodes:
        by_layer["component" if index.graph.node(node).layer == 1 else "subcomponent"].append(node)
    scores: dict[str, float] = {}
    with meter.timed("vector"):
        for layer, members in by_layer.items():
            scores.update(index.similarities(layer, query, members))  # type: ignore[arg-type]
    return scores
