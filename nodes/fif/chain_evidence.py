"""The evidence a link chain (source, target) among the reranker's candidates adds.

A chain is a candidate whose parts link to another candidate's document. Beside the
facets its members cover together (nodes.fif.fusion), it is scored by how far its linking
row trails the row that matches the question best (`path_penalties`), how well the
target fits what the source leaves of the question (`residual_fit`), and, from a table,
how well another target of the same row fits it (`co_link_support`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nodes.core.lexical import covered_share, covered_terms
from nodes.core.question_rules import rule_weights
from nodes.fif.hop import parts_first, residual_text, row_scores
from nodes.fif.traversal import component_scores
from state.fif_state import Candidate
from state.tuning import FiFTuning
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import outgoing_links


def chains(index: CorpusIndex, ids: Sequence[str]) -> list[tuple[str, str]]:
    """Return (source, target) candidate pairs where the source or its parts link to the target."""
    by_doc: dict[str, list[str]] = {}
    for node in ids:
        by_doc.setdefault(index.graph.node(node).doc_id, []).append(node)
    pairs = []
    for source in ids:
        linked = index.graph.links_within(source)
        pairs += [(source, target) for doc in linked for target in by_doc.get(doc, ())]
    return pairs


def source_terms(index: CorpusIndex, pairs: Sequence[tuple[str, str]]) -> dict[str, set[str]]:
    """Return the terms of each chain source's full text, in the sources' first order."""
    sources = dict.fromkeys(s for s, _ in pairs)
    return {source: covered_terms(index, [source]) for source in sources}


def residual_queries(question: str, covered: Mapping[str, set[str]]) -> dict[str, str]:
    """Return, per source, what its terms leave of the question."""
    return {source: residual_text(question, terms) for source, terms in covered.items()}


def prefetch_chain_residuals(index: CorpusIndex, question: str, ids: Sequence[str]) -> None:
    """Declare the residual questions of the chains among candidates `ids`, ahead of use.

    The evaluator calls it after each step: candidates only grow, so each chain source
    found so far stays one, and the reranker finds its residual embedded by the helper.
    """
    pairs = chains(index, ids)
    index.prefetch_queries(list(residual_queries(question, source_terms(index, pairs)).values()))


def residual_fit(
    index: CorpusIndex,
    question: str,
    pairs: Sequence[tuple[str, str]],
    covered: Mapping[str, set[str]],
    meter: CostMeter,
) -> dict[tuple[str, str], float]:
    """Return, per chain, how well the target fits what the source leaves of the question.

    `covered` holds each source's terms (`source_terms`).
    """
    residuals = residual_queries(question, covered)
    by_source: dict[str, list[str]] = {}
    for source, target in pairs:
        by_source.setdefault(source, []).append(target)
    with meter.timed("embedding"):  # declared after each step by the evaluator
        vectors = index.embed_queries([residuals[source] for source in by_source])
    result: dict[tuple[str, str], float] = {}
    for (source, targets), vector in zip(by_source.items(), vectors, strict=True):
        weight = covered_share(question, covered[source])  # a residual is as sharp as its source
        for target, (value, _) in component_scores(index, vector, targets, meter).items():
            result[(source, target)] = weight * value
    return result


def path_penalties(
    index: CorpusIndex,
    question: str,
    candidates: Mapping[str, Candidate],
    meter: CostMeter,
    tuning: FiFTuning,
) -> dict[tuple[str, str], float]:
    """Return, per (source, target) reached by a hop, how far its linking node trails.

    The value is 0 when the link left the source component's best-matching row or
    sentence (scored as link hops score them, `nodes.fif.hop.row_scores`) and negative
    otherwise.
    """
    reached: dict[str, list[tuple[str, str]]] = {}
    for node, candidate in candidates.items():
        via = candidate.get("via")
        if via:
            view = index.graph.node(via)
            owner = via if view.layer == 1 else str(view.attrs["component_id"])
            reached.setdefault(owner, []).append((node, via))
    if not reached:
        return {}
    with meter.timed("embedding"):
        vector = index.embed_query(question)
    penalties: dict[tuple[str, str], float] = {}
    for owner, pairs in reached.items():
        nodes = [owner, *index.graph.children(owner)]
        linking = parts_first(index.graph, [n for n in nodes if outgoing_links(index.graph, n)])
        weights = tuning.lexical_weight, rule_weights(tuning)
        score = row_scores(index, question, vector, linking, meter, *weights)
        top = max(score.values(), default=0.0)
        for node, via in pairs:
            penalties[(owner, node)] = score.get(via, top) - top
    return penalties


def co_link_support(
    index: CorpusIndex, pairs: Sequence[tuple[str, str]], rest: Mapping[tuple[str, str], float]
) -> dict[tuple[str, str], float]:
    """Return, per chain from a table, the best residual fit of another target of its row.

    A table row is one record: when one entity it links to fits what the table leaves of
    the question (the team that plays at the named stadium), the row is the right one, and
    its other links (the team it lost to) gain that fit. Paragraph sources get none: a
    sentence names entities side by side without relating them as a row does.
    """
    targets_of: dict[str, list[str]] = {}
    for source, target in pairs:
        if index.graph.node(source).kind == "table":
            targets_of.setdefault(source, []).append(target)
    support: dict[tuple[str, str], float] = {}
    for source, targets in targets_of.items():
        doc_of = {target: index.graph.node(target).doc_id for target in targets}
        for row in index.graph.children(source):
            linked = index.graph.links_from(row)
            on_row = [target for target in targets if doc_of[target] in linked]
            for target in on_row:
                others = [rest.get((source, other), 0.0) for other in on_row if other != target]
                if others:
                    support[(source, target)] = max(support.get((source, target), 0.0), *others)
    return support


def link_evidence(
    index: CorpusIndex,
    question: str,
    candidates: Mapping[str, Candidate],
    pairs: Sequence[tuple[str, str]],
    meter: CostMeter,
    tuning: FiFTuning,
) -> dict[tuple[str, str], float]:
    """Return, per chain, its three evidence terms weighted by `tuning` and summed."""
    penalty = path_penalties(index, question, candidates, meter, tuning)
    rest = residual_fit(index, question, pairs, source_terms(index, pairs), meter)
    co_link = co_link_support(index, pairs, rest) if tuning.co_link_weight > 0 else {}
    return {
        pair: tuning.path_weight * penalty.get(pair, 0.0)
        + tuning.residual_weight * rest.get(pair, 0.0)
        + tuning.co_link_weight * co_link.get(pair, 0.0)
        for pair in pairs
    }
