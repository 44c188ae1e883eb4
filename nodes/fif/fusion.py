"""The offline reranker: late interaction over the question's facets, on evidence chains.

Facets are the original question, its clauses and the plan's subqueries, plus one lexical
facet (their words' BM25 match among the candidates, `with_lexical_facet`). Every candidate
component c gets a profile p_c[f] = max over c and its subcomponents of sim(f, ·). A
single component scores Σ_f p_c[f]; a chain (s, c) — a candidate s whose evidence links
to the document of candidate c — scores Σ_f max(p_s[f], p_c[f]), so a table row and the
passage it points at are rewarded for covering different facets together, plus the
evidence of its link (nodes.fif.chain_evidence: the linking row's trail behind the best row,
the target's fit to what the source leaves of the question, and from a table the fit of
the row's other links). A chain that adds nothing to its source (one-sided) is dropped.
Units are ranked by score and flattened source first, so each hop's target follows the
component that led to it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from nodes.core.lexical import lexical_bm25
from nodes.fif.chain_evidence import chains, link_evidence
from nodes.lilac.heuristics import merge_to_limit, split_clauses
from state.core import Ranked, ranked_entry
from state.fif_state import Candidate
from state.tuning import FiFTuning
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.late_interaction import facet_profiles, item_scores, joint_scores

MAX_FACETS = 6
SCORE_DECIMALS = 5
"""Scores equal to this many decimals (as the ranking shows them) are ties: a dot product's
last bits vary with where BLAS finds its row, so finer differences are noise."""


def facets(question: str, subqueries: Sequence[str]) -> list[str]:
    """Return the question, its clauses and the subqueries, without repeats."""
    clauses = split_clauses(question)
    parts = merge_to_limit(clauses, MAX_FACETS - 1) if len(clauses) > 1 else []
    return list(dict.fromkeys([question, *parts, *subqueries]))[:MAX_FACETS]


def prefetch_plan(index: CorpusIndex, question: str, subqueries: Sequence[str]) -> None:
    """Declare a plan's texts ahead of use: the hops' subqueries, then the reranker's facets.

    Two batches (`CorpusIndex.prefetch_queries`): the first hop waits only for its
    subquery, and the clauses are embedded by the helper process while the hops run.
    """
    index.prefetch_queries(subqueries)
    index.prefetch_queries(facets(question, subqueries))


def first_hop_finds(
    single: Mapping[str, float], candidates: Mapping[str, Candidate], slots: int
) -> list[str]:
    """Return the `slots` first-step candidates that match the question best on their own."""
    first = (c for c in candidates if candidates[c]["step"] == 0)
    return sorted(first, key=lambda c: (-_shown(single[c]), c))[:slots]


def keep_in_top(placed: Sequence[str], kept: Sequence[str], k: int) -> list[str]:
    """Return the top k of a ranking in which every node of `kept` stays.

    A kept node pushed out takes the place of the last entry that is not kept: others may
    outrank it, never crowd it out.
    """
    top = list(placed[:k])
    for node in (c for c in kept if c not in top):
        if len(top) < k:
            top.append(node)
            continue
        victims = [i for i, c in enumerate(top) if c not in kept]
        if victims:
            top[victims[-1]] = node
    return top


def with_lexical_facet(
    index: CorpusIndex, words: str, ids: Sequence[str], matrix: np.ndarray, weight: float
) -> np.ndarray:
    """Append a facet column: each candidate's BM25 match of `words` among the pool.

    Scaled to [0, weight] by the pool's best match, so a candidate holding the query's rare
    words gains, and a chain takes its better member's value like any facet.
    """
    lexical = np.array(lexical_bm25(index, words, ids))
    top = float(lexical.max(initial=0.0))
    column = weight * lexical / top if top > 0 else np.zeros(len(ids))
    return np.column_stack([matrix, column.astype(matrix.dtype)])


def reranker_profiles(
    index: CorpusIndex,
    facet_texts: Sequence[str],
    ids: Sequence[str],
    meter: CostMeter,
    tuning: FiFTuning,
) -> np.ndarray:
    """Return the candidates' cosine facet profiles, plus the lexical facet when weighted."""
    matrix = facet_profiles(index, facet_texts, ids, meter)
    if tuning.rerank_lexical_weight <= 0:
        return matrix
    words = " ".join(facet_texts)
    return with_lexical_facet(index, words, ids, matrix, tuning.rerank_lexical_weight)


def chain_ranking(
    index: CorpusIndex,
    question: str,
    subqueries: Sequence[str],
    candidates: Mapping[str, Candidate],
    k: int,
    meter: CostMeter,
    tuning: FiFTuning | None = None,
    finds: Sequence[str] = (),
) -> tuple[list[Ranked], dict[str, float]]:
    """Rank candidates by late interaction over single components and link chains.

    `tuning` (defaults if None) weighs chains and keeps `first_hop_slots` of the top k for the
    strongest first-step finds; `finds` (the subqueries' own top finds) stay in the top k
    too (`keep_in_top`). Returns the ranking and each candidate's single-component score.
    The evaluator declared the chains' residual questions after each step; facets not
    declared yet (a replan's or a bridge's subquery) are declared before the facet
    profiles are built, so the helper process embeds them meanwhile.
    """
    tuning, ids = tuning or FiFTuning(), list(candidates)
    facet_texts, pairs = facets(question, subqueries), chains(index, ids)
    index.prefetch_queries(facet_texts)
    matrix = reranker_profiles(index, facet_texts, ids, meter, tuning)
    position = {node: i for i, node in enumerate(ids)}
    single = item_scores(matrix)
    units: list[tuple[float, tuple[str, ...]]] = [
        (float(single[i]), (node,)) for i, node in enumerate(ids)
    ]
    evidence = link_evidence(index, question, candidates, pairs, meter, tuning)
    sources = np.array([position[source] for source, _ in pairs], dtype=np.int64)
    targets = np.array([position[target] for _, target in pairs], dtype=np.int64)
    joint = joint_scores(matrix, sources, targets)
    for (source, target), s, t, together in zip(pairs, sources, targets, joint, strict=True):
        score = float(together) + evidence[(source, target)]
        if score > max(single[s], single[t]) + tuning.chain_margin:
            # the member that matches the whole question better comes first
            pair = (source, target) if matrix[s, 0] >= matrix[t, 0] else (target, source)
            units.append((score, pair))
    # ties (chains of one strong source): the better partner, then the id, never the find order
    units.sort(key=lambda unit: (-_shown(unit[0]), -_shown(single[position[unit[1][-1]]]), unit[1]))
    placed = _placed(units, k)
    own = {node: float(single[position[node]]) for node in ids}
    order = list(placed)
    order += sorted((n for n in ids if n not in placed), key=lambda n: (-_shown(own[n]), n))
    first = first_hop_finds(own, candidates, tuning.first_hop_slots)
    kept = keep_in_top(order, [*first, *(f for f in finds if f in own)], k)
    return [_ranked(node, placed.get(node, own[node]), candidates) for node in kept], own


def _placed(units: Sequence[tuple[float, tuple[str, ...]]], k: int) -> dict[str, float]:
    """Place units (single nodes, chains) best first until k nodes are placed; their scores."""
    placed: dict[str, float] = {}
    for score, members in units:
        for node in members:
            placed.setdefault(node, score)
        if len(placed) >= k:
            break
    return placed


def _ranked(node: str, score: float, candidates: Mapping[str, Candidate]) -> Ranked:
    candidate = candidates[node]
    return ranked_entry(node, candidate["doc_id"], candidate["kind"], _shown(score))


def _shown(score: float) -> float:
    return round(float(score), SCORE_DECIMALS)
