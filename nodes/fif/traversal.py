"""TRAVERSE(D_anc, q_t, τ_t): a document stage, then a component stage inside the chosen documents.

Document stage: neighbors of the anchor (links leaving the anchor's evidence), a global
vector search over layer 0 at granularity g, or a vector shortlist that a careful
selector (the LLM, or its offline twin) narrows down. Component stage: vector scoring at
component or subcomponent granularity, or a shortlist plus careful selection.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from nodes.fif.hop import LinkHop, link_hop
from state.core import Granularity
from state.fif_state import Found, StepRecord, Strategy
from state.tuning import FiFTuning, SearchMode
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.rank_fusion import fused_order
from tools.search import best_per_parent, score_nodes, score_sparse, score_vec

Selector = Callable[[str, list[str], int], list[tuple[str, float]]]
"""(stage, candidate ids, how many to keep) -> kept (id, score), best first."""


@dataclass(frozen=True)
class Traversal:
    """One TRAVERSE(D_anc, q_t, τ_t) call: what it looks for, with what, and how much it keeps."""

    index: CorpusIndex
    subquery: str
    query: np.ndarray
    """The embedded subquery."""
    strategy: Strategy
    select: Selector
    """The careful selector of the "llm" stages."""
    meter: CostMeter
    tuning: FiFTuning
    keep_docs: int
    keep_components: int
    shortlist: int
    """How many candidates a careful selection looks at (Context.shortlist_k)."""


@dataclass(frozen=True)
class Region:
    """Where a traversal starts: the anchor's documents and the nodes whose links it follows."""

    docs: list[str]
    sources: list[str]

    def components(self, index: CorpusIndex) -> list[str]:
        """Return the sources that are components (a link hop's anchor components)."""
        return [n for n in self.sources if index.graph.node(n).layer == 1]


def anchor_region(history: Sequence[StepRecord], anchor: int | None) -> Region | None:
    """Return the documents and evidence nodes of an anchor step (None without an anchor)."""
    if anchor is None:
        return None
    return step_region(history[anchor])


def step_region(record: StepRecord) -> Region:
    """Return the documents and evidence nodes of a step, as an anchor for a later hop."""
    docs = list(dict.fromkeys(c["doc_id"] for c in record["components"]))
    sources = [c["id"] for c in record["components"]]
    sources += [c["evidence"] for c in record["components"] if c.get("evidence")]
    return Region(docs, list(dict.fromkeys(sources)))


def document_stage(
    traversal: Traversal, region: Region | None
) -> tuple[list[Found], LinkHop | None]:
    """Choose documents; a neighbors hop also returns how it reached each of them.

    A global stage ranks documents by `tuning.global_search` (see `global_documents`).
    """
    index, query, meter = traversal.index, traversal.query, traversal.meter
    strategy, keep, tuning = traversal.strategy, traversal.keep_docs, traversal.tuning
    subquery = traversal.subquery
    granularity = strategy["granularity"]
    if strategy["doc_mode"] == "neighbors":
        if region is None:
            return [], None
        components = region.components(index)
        hop = link_hop(index, subquery, query, components, region.docs, meter, tuning)
        if hop is None:
            return [], None
        docs = [d for d in hop.via if index.in_scope(d)]
        if not docs:
            return [], None
        fit = best_per_parent(index, hop.residual, docs, granularity, meter)
        ranked = sorted(docs, key=lambda d: (-(fit[d][0] + hop.prior[d]), d))[:keep]
        own = best_per_parent(index, query, ranked, granularity, meter)
        return [_found(d, d, "document", own[d][0], own[d][1]) for d in ranked], hop
    pool = traversal.shortlist if strategy["doc_mode"] == "llm" else keep
    found = global_documents(index, subquery, query, granularity, pool, tuning.global_search, meter)
    if strategy["doc_mode"] == "llm":
        found = _reselect(found, traversal.select("document", [f["id"] for f in found], keep))
    return found[:keep], None


def global_documents(
    index: CorpusIndex,
    subquery: str,
    query: np.ndarray,
    granularity: Granularity,
    n: int,
    mode: SearchMode,
    meter: CostMeter,
) -> list[Found]:
    """Return the top-n documents of the index (or its scope) for a subquery.

    Dense ranks by SCORE_vec; sparse and hybrid choose and order the documents by BM25 or by
    the fused ranking, but every document keeps its dense score and evidence, since the
    evaluator and the reranker compare cosines.
    """
    if mode == "dense":
        hits = score_vec(index, query, "document", granularity, n, meter=meter)
        return [_found(h.node_id, h.doc_id, "document", h.score, h.evidence) for h in hits]
    ranked = [h.node_id for h in score_nodes(index, subquery, "document", granularity, n, mode,
                                             meter=meter)]  # fmt: skip
    # the fused search has just embedded the subquery and scored these documents densely,
    # but its hits carry fused scores: read the cosines back from the vector cache
    own = best_per_parent(index, query, ranked, granularity, meter)
    return [_found(d, d, "document", *own[d]) for d in ranked if d in own]


def component_scores(
    index: CorpusIndex, query: np.ndarray, components: Sequence[str], meter: CostMeter
) -> dict[str, tuple[float, str]]:
    """Score components by their best match over themselves and their subcomponents.

    The matching subcomponent is returned as evidence even when the component's own
    vector scores higher, since links are followed from the evidence.
    """
    scored = best_per_parent(index, query, components, "component", meter)
    for component, (score, evidence) in best_per_parent(
        index, query, components, "subcomponent", meter
    ).items():
        scored[component] = (max(score, scored.get(component, (-2.0, ""))[0]), evidence)
    return scored


def component_stage(
    traversal: Traversal, documents: Sequence[Found], hop: LinkHop | None
) -> list[Found]:
    """Rank the components of the chosen documents and keep the best.

    A table is judged by its best row and a paragraph by its best sentence. After a
    link hop, components are ranked by the residual subquery plus the link prior, and
    remember the node whose link reached them. Without one, `tuning.component_search`
    ranks them densely, by BM25 or by both fused.
    """
    index, query, meter = traversal.index, traversal.query, traversal.meter
    strategy = traversal.strategy
    keep, shortlist = traversal.keep_components, traversal.shortlist
    subquery, mode = traversal.subquery, traversal.tuning.component_search
    components = [c for doc in documents for c in index.graph.children(doc["id"])]
    if not components:
        return []
    scored = component_scores(index, query, components, meter)
    if hop is None and mode != "dense":
        rank = _fused_rank(index, subquery, scored, documents, strategy["granularity"], mode, meter)
    elif hop is None:
        rank = {c: scored[c][0] for c in scored}
    else:
        fit = component_scores(index, hop.residual, components, meter)
        rank = {c: fit[c][0] + hop.prior.get(index.graph.node(c).doc_id, 0.0) for c in fit}
    found = []
    wanted = shortlist if strategy["comp_mode"] == "llm" else keep
    for component in heapq.nsmallest(wanted, rank, key=lambda c: (-rank[c], c)):  # = sorted[:n]
        view = index.graph.node(component)
        record = _found(component, view.doc_id, view.kind, *scored[component])
        if hop is not None and view.doc_id in hop.via:
            record["via"] = hop.via[view.doc_id]
        found.append(record)
    if strategy["comp_mode"] == "llm":
        found = _reselect(
            found[:shortlist],
            traversal.select("component", [f["id"] for f in found[:shortlist]], keep),
        )
    return found[:keep]


def _fused_rank(
    index: CorpusIndex,
    subquery: str,
    scored: dict[str, tuple[float, str]],
    documents: Sequence[Found],
    granularity: Granularity,
    mode: SearchMode,
    meter: CostMeter,
) -> dict[str, float]:
    """Rank components by BM25 (sparse) or BM25 fused with their dense order (hybrid)."""
    at: Granularity = "component" if granularity == "document" else granularity
    docs = [d["id"] for d in documents]
    lexical = [h.node_id for h in score_sparse(index, subquery, "component", at, len(scored),
                                               docs, meter)]  # fmt: skip
    dense = sorted(scored, key=lambda c: (-scored[c][0], c))
    rankings = [lexical] if mode == "sparse" else [dense, lexical]
    order = [c for c, _ in fused_order(rankings) if c in scored]
    placed = set(order)
    order += [c for c in dense if c not in placed]
    return {c: -float(i) for i, c in enumerate(order)}


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
