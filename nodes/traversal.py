"""TRAVERSE(D_anc, q_t, τ_t): a document stage, then a component stage inside the chosen documents.

Document stage: neighbors of the anchor (links leaving the anchor's evidence), a global
vector search over layer 0 at granularity g, or a vector shortlist that a careful
selector (the LLM, or its offline twin) narrows down. Component stage: vector scoring at
component or subcomponent granularity, or a shortlist plus careful selection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from state.fif_state import Found, StepRecord, Strategy
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import neighbors, outgoing_links
from tools.search import score_vec

LINK_PRIOR = 3.0
"""Weight of the linking node's match when ranking documents reached by a link."""

Selector = Callable[[str, list[str], int], list[tuple[str, float]]]
"""(stage, candidate ids, how many to keep) -> kept (id, score), best first."""


@dataclass(frozen=True)
class Region:
    """Where a traversal starts: the anchor's documents and the nodes whose links it follows."""

    docs: list[str]
    sources: list[str]


def anchor_region(history: Sequence[StepRecord], anchor: int | None) -> Region | None:
    """Return the documents and evidence nodes of an anchor step (None without an anchor)."""
    if anchor is None:
        return None
    record = history[anchor]
    docs = list(dict.fromkeys(c["doc_id"] for c in record["components"]))
    sources = [c["id"] for c in record["components"]]
    sources += [c["evidence"] for c in record["components"] if c.get("evidence")]
    return Region(docs, list(dict.fromkeys(sources)))


def best_per_parent(
    index: CorpusIndex, query: np.ndarray, parents: Sequence[str], layer: str, meter: CostMeter
) -> dict[str, tuple[float, str]]:
    """Score each parent by its best child at `layer` (SCORE_vec, exact, from the vector cache)."""
    graph = index.graph
    owner: dict[str, str] = {}
    for parent in parents:
        nodes = [parent]
        depth = {"document": 0, "component": 1, "subcomponent": 2}[layer] - graph.node(parent).layer
        for _ in range(depth):
            nodes = [child for node in nodes for child in graph.children(node)]
        owner.update({node: parent for node in nodes})
    with meter.timed("vector"):
        sims = index.cache.similarities(layer, query, list(owner))  # type: ignore[arg-type]
    best: dict[str, tuple[float, str]] = {}
    for node, score in sims.items():
        parent = owner[node]
        if parent not in best or score > best[parent][0]:
            best[parent] = (score, node)
    return best


def document_stage(
    index: CorpusIndex,
    query: np.ndarray,
    strategy: Strategy,
    region: Region | None,
    keep: int,
    shortlist: int,
    select: Selector,
    meter: CostMeter,
) -> tuple[list[Found], dict[str, str]]:
    """Choose documents; returns them and, for linked ones, the node each was reached from."""
    granularity = strategy["granularity"]
    via: dict[str, str] = {}
    if strategy["doc_mode"] == "neighbors":
        if region is None:
            return [], via
        return _linked_documents(index, query, region, granularity, keep, meter)
    pool = shortlist if strategy["doc_mode"] == "llm" else keep
    hits = score_vec(index, query, "document", granularity, pool, meter=meter)
    found = [_found(h.node_id, h.doc_id, "document", h.score, h.evidence) for h in hits]
    if strategy["doc_mode"] == "llm":
        found = _reselect(found, select("document", [f["id"] for f in found], keep))
    return found[:keep], via


def _linked_documents(
    index: CorpusIndex,
    query: np.ndarray,
    region: Region,
    granularity: str,
    keep: int,
    meter: CostMeter,
) -> tuple[list[Found], dict[str, str]]:
    """Follow the links of the anchor's components and their subcomponents.

    Each linked document is ranked by its own match (SCORE_vec at the granularity) plus
    LINK_PRIOR times how far the best node linking to it trails the best linking node
    overall, so a link leaving the table row or sentence that fits the subquery wins.
    """
    graph = index.graph
    components = [n for n in region.sources if graph.node(n).layer == 1]
    origin = components + [sub for c in components for sub in graph.children(c)]
    linked = neighbors(graph, region.docs, [n for n in origin if outgoing_links(graph, n)])
    if not linked:
        return [], {}
    source_score = _node_scores(index, query, {s for srcs in linked.values() for s in srcs}, meter)
    top_source = max(source_score.values(), default=0.0)
    via, prior = {}, {}
    for doc, sources in linked.items():
        best = max(sources, key=lambda node: source_score.get(node, -1.0))
        via[doc], prior[doc] = best, source_score.get(best, -1.0) - top_source
    scored = best_per_parent(index, query, list(linked), granularity, meter)
    ranked = sorted(scored.items(), key=lambda item: -(item[1][0] + LINK_PRIOR * prior[item[0]]))
    found = [_found(doc, doc, "document", score, evidence) for doc, (score, evidence) in ranked]
    return found[:keep], via


def _node_scores(
    index: CorpusIndex, query: np.ndarray, nodes: set[str], meter: CostMeter
) -> dict[str, float]:
    """Return sim(q, node) for components and subcomponents, from the vector cache."""
    by_layer: dict[str, list[str]] = {"component": [], "subcomponent": []}
    for node in nodes:
        by_layer["component" if index.graph.node(node).layer == 1 else "subcomponent"].append(node)
    scores: dict[str, float] = {}
    with meter.timed("vector"):
        for layer, members in by_layer.items():
            scores.update(index.cache.similarities(layer, query, members))  # type: ignore[arg-type]
    return scores


def component_stage(
    index: CorpusIndex,
    query: np.ndarray,
    strategy: Strategy,
    documents: Sequence[Found],
    via: dict[str, str],
    keep: int,
    shortlist: int,
    select: Selector,
    meter: CostMeter,
) -> list[Found]:
    """Rank the components of the chosen documents and keep the best.

    A component scores its best match over itself and its subcomponents, so a table is
    judged by its best row and a paragraph by its best sentence; the matching
    subcomponent is kept as the component's evidence (where its links are followed from).
    """
    components = [c for doc in documents for c in index.graph.children(doc["id"])]
    if not components:
        return []
    scored = best_per_parent(index, query, components, "component", meter)
    for component, (score, evidence) in best_per_parent(
        index, query, components, "subcomponent", meter
    ).items():
        if score > scored.get(component, (-2.0, ""))[0]:
            scored[component] = (score, evidence)
        else:
            scored[component] = (scored[component][0], evidence)
    ranked = sorted(scored.items(), key=lambda item: -item[1][0])
    found = []
    for component, (score, evidence) in ranked:
        view = index.graph.node(component)
        record = _found(component, view.doc_id, view.kind, score, evidence)
        if view.doc_id in via:
            record["via"] = via[view.doc_id]
        found.append(record)
    if strategy["comp_mode"] == "llm":
        found = _reselect(
            found[:shortlist], select("component", [f["id"] for f in found[:shortlist]], keep)
        )
    return found[:keep]


def _found(node_id: str, doc_id: str, kind: str, score: float, evidence: str) -> Found:
    record: Found = {"id": node_id, "doc_id": doc_id, "kind": kind, "score": round(score, 5)}
    if evidence and evidence != node_id:
        record["evidence"] = evidence
    return record


def _reselect(found: list[Found], kept: list[tuple[str, float]]) -> list[Found]:
    by_id = {f["id"]: f for f in found}
    return [
        {**by_id[node_id], "score": round(score, 5)} for node_id, score in kept if node_id in by_id
    ]
