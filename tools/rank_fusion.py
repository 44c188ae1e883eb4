"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): rankings merged by rank alone.

Dense cosines and BM25 scores live on different scales; RRF ignores the scores and gives an
item `1 / (k + rank)` from every ranking that holds it, so no calibration is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60
"""The constant of the original paper: larger values flatten the advantage of the very top
ranks, so an item found by both rankings beats one found high by only one of them."""


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Return each item's fused score, `sum over rankings of 1 / (k + rank)` (rank from 1).

    Raises:
        ValueError: If k is negative.
    """
    if k < 0:
        raise ValueError(f"the RRF constant must be >= 0, got {k}")
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):
            fused[item] = fused.get(item, 0.0) + 1.0 / (k + rank)
    return fused


def fused_order(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Return items by fused score, best first; ties go to the better best rank, then id."""
    fused = reciprocal_rank_fusion(rankings, k)
    best_rank: dict[str, int] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            best_rank[item] = min(best_rank.get(item, rank), rank)
    return sorted(fused.items(), key=lambda pair: (-pair[1], best_rank[pair[0]], pair[0]))
