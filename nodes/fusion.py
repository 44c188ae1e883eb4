"""The offline reranker: fuse the original question, the subqueries and the link paths.

Each candidate component c gets
    s(c) = max(sim(Q, c), max_u sim(Q, u))                     question match, u ∈ Desc_2(c)
         + SUBQUERY_WEIGHT · mean_q max_u sim(q, u)              late interaction, other subqueries
         + PATH_WEIGHT · (sim(Q, source) − max sim(Q, s'))      when c was reached by a link
The ranking orders components by their own match (first two terms) and keeps evidence
chains together: right after a component comes the linked candidate with the best
chain score (all three terms), so a table and the passage its row points at rank as a pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from nodes.traversal import best_per_parent
from state.fif_state import Candidate, Ranked
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import outgoing_links

SUBQUERY_WEIGHT = 0.25
PATH_WEIGHT = 3.0


def fused_scores(
    index: CorpusIndex,
    question: str,
    subqueries: Sequence[str],
    candidates: Mapping[str, Candidate],
    meter: CostMeter,
) -> tuple[dict[str, float], dict[str, float]]:
    """Return (own score, chain score) of every candidate.

    The own score matches the component to Q and, late-interaction style, to the other
    subqueries; the chain score adds the match of the node that linked to it, if any.
    """
    ids = list(candidates)
    others = [q for q in dict.fromkeys(subqueries) if q != question]
    with meter.timed("embedding"):
        vectors = index.embed_queries([question, *others])
    own = _question_match(index, vectors[0], ids, meter)
    for vector in vectors[1:]:
        for node, (value, _) in best_per_parent(index, vector, ids, "subcomponent", meter).items():
            own[node] += SUBQUERY_WEIGHT * value / len(others)
    path = _path_scores(index, vectors[0], candidates, meter)
    chain = {node: own[node] + PATH_WEIGHT * path[node] for node in path}
    return own, chain


def _question_match(
    index: CorpusIndex, vector: np.ndarray, ids: list[str], meter: CostMeter
) -> dict[str, float]:
    scores = {node: -1.0 for node in ids}
    for layer in ("component", "subcomponent"):
        for node, (value, _) in best_per_parent(index, vector, ids, layer, meter).items():
            scores[node] = max(scores[node], value)
    return scores


def _path_scores(
    index: CorpusIndex, vector: np.ndarray, candidates: Mapping[str, Candidate], meter: CostMeter
) -> dict[str, float]:
    """Return, per linked candidate, how its linking node ranks inside its component.

    The value is sim(Q, source) minus the best sim(Q, ·) among the linking nodes of the
    same component: 0 for a link from the best-matching row or sentence, negative for
    the others. Absolute similarities of rows of one table differ little; their order
    is what tells which row the question is about.
    """
    owners = {node: source_component(index, c) for node, c in candidates.items() if c.get("via")}
    pool: set[str] = set()
    for owner in set(owners.values()):
        pool.add(str(owner))
        pool.update(index.graph.children(str(owner)))
    pool.update(c["via"] for c in candidates.values() if c.get("via"))
    sims = _node_sims(index, vector, pool, meter)
    best: dict[str, float] = {}
    for owner in set(owners.values()):
        nodes = [str(owner), *index.graph.children(str(owner))]
        linking = [n for n in nodes if outgoing_links(index.graph, n)] or nodes
        best[str(owner)] = max(sims.get(n, -1.0) for n in linking)
    return {node: sims.get(candidates[node]["via"], -1.0) - best[str(owner)]
            for node, owner in owners.items()}


def _node_sims(
    index: CorpusIndex, vector: np.ndarray, nodes: set[str], meter: CostMeter
) -> dict[str, float]:
    by_layer: dict[str, list[str]] = {"component": [], "subcomponent": []}
    for node in nodes:
        by_layer["component" if index.graph.node(node).layer == 1 else "subcomponent"].append(node)
    sims: dict[str, float] = {}
    with meter.timed("vector"):
        for layer, members in by_layer.items():
            sims.update(index.cache.similarities(layer, vector, members))  # type: ignore[arg-type]
    return sims


def source_component(index: CorpusIndex, candidate: Candidate) -> str | None:
    """Return the component whose link (from itself or a subcomponent) reached the candidate."""
    source = candidate.get("via")
    if not source:
        return None
    view = index.graph.node(source)
    return source if view.layer == 1 else str(view.attrs["component_id"])


def chain_ranking(
    index: CorpusIndex,
    own: Mapping[str, float],
    chain: Mapping[str, float],
    candidates: Mapping[str, Candidate],
    k: int,
) -> list[Ranked]:
    """Rank by own score; right after a component comes its best-chained linked candidate.

    A linked candidate never precedes the component it was reached from, so the first
    hops keep their dense-like order and each hop's target follows its source.
    """
    followers: dict[str, list[str]] = {}
    for node, candidate in candidates.items():
        owner = source_component(index, candidate)
        if owner is not None and owner in candidates:
            followers.setdefault(owner, []).append(node)
    placed: list[str] = []
    for node in sorted(own, key=lambda n: -own[n]):
        if len(placed) >= k:
            break
        if node in placed:
            continue
        placed.append(node)
        pending = sorted((f for f in followers.get(node, []) if f not in placed),
                         key=lambda f: -chain[f])
        if pending and len(placed) < k:
            placed.append(pending[0])
    ranking: list[Ranked] = []
    ceiling = float("inf")
    for node in placed[:k]:
        ceiling = min(ceiling, own[node])  # scores shown stay monotone with rank
        ranking.append({"component_id": node, "doc_id": candidates[node]["doc_id"],
                        "type": candidates[node]["kind"], "score": round(ceiling, 5)})
    return ranking
