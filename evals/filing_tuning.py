"""Honest tuning of the page ranking's weights: chosen on two company folds, reported on the third.

The views of every page are computed once per question and setting
(`tools.page_ranking.page_views`); a weight grid is then only a re-fusion. In each round
the weights with the most page-R@5 hits on the two tuning folds (both settings pooled) win,
ties going to the higher reciprocal rank of the first gold page there (MRR@10), then to the
fewest changes from the defaults; the held-out fold is scored with them.
A view is kept only if zeroing it in each round's chosen weights loses hits on the
held-out folds, pooled over the three rounds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from evals.filing_eval import PAGE_K, FilingQuestion
from evals.filing_folds import rounds
from evals.metrics import recall_at_k
from tools.page_fusion import PAGE_DEPTH, weighted_order
from tools.page_ranking import PageViews, PageWeights, fuse_views

GRID: dict[str, tuple[float, ...]] = {
    "words": (0.0, 0.5, 1.0),
    "lines": (0.0, 0.5, 1.0),
    "periods": (0.0, 0.25),
    "statement": (0.0, 0.5, 1.0, 2.0, 3.0),
    "filing": (1.0, 2.0),
    "passage": (0.0, 1.0, 2.0),
}
"""Values tried per view; the chunk view's weight stays 1 (the scale)."""

Views = Mapping[str, Mapping[str, PageViews]]
"""setting ("shared" | "single") -> qid -> the question's page views."""


@dataclass(frozen=True)
class Round:
    """One round: the tuning folds, the held-out fold, the weights chosen, held-out hits."""

    tuned_on: tuple[str, ...]
    held_out: str
    weights: PageWeights
    held_out_hits: dict[str, tuple[int, int]]
    """setting -> (hits, questions) on the held-out fold."""


def grid() -> list[PageWeights]:
    """Return every weight combination of GRID."""
    names = list(GRID)
    return [
        PageWeights(**dict(zip(names, values, strict=True)))
        for values in itertools.product(*(GRID[n] for n in names))
    ]


def hits(views: Views, questions: Sequence[FilingQuestion], weights: PageWeights) -> dict[str, int]:
    """Return page-R@5 hits per setting for given weights."""
    found = {}
    for setting, by_qid in views.items():
        found[setting] = sum(
            int(
                recall_at_k(
                    [p.key for p in fuse_views(by_qid[q.qid], weights, PAGE_K)],
                    q.gold_pages,
                    PAGE_K,
                )
            )
            for q in questions
        )
    return found


def _hits_and_mrr(found: Iterable[tuple[Sequence[str], frozenset[str]]]) -> tuple[int, float]:
    """Return page-R@5 hits and the summed reciprocal rank of each first gold page (top 10)."""
    hit, reciprocal = 0, 0.0
    for pages, gold in found:
        hit += int(recall_at_k(list(pages), gold, PAGE_K))
        reciprocal += _reciprocal(pages, gold)
    return hit, round(reciprocal, 9)


def _changes(weights: PageWeights) -> int:
    default = PageWeights()
    return sum(getattr(weights, v) != getattr(default, v) for v in weights.views())


def tune(views: Views, questions: Sequence[FilingQuestion]) -> list[Round]:
    """Run the three rounds; return each round's chosen weights and held-out hits."""
    candidates = grid()
    done = []
    for tuned_on, held_out in rounds():
        tuning = [q for q in questions if q.fold in tuned_on]
        held = [q for q in questions if q.fold == held_out]
        best = max(
            candidates,
            key=lambda w: (
                *_hits_and_mrr(
                    ([p.key for p in fuse_views(by_qid[q.qid], w, 10)], q.gold_pages)
                    for by_qid in views.values()
                    for q in tuning
                ),
                -_changes(w),
            ),
        )
        found = hits(views, held, best)
        done.append(Round(tuned_on, held_out, best, {s: (found[s], len(held)) for s in found}))
    return done


def view_test(
    views: Views, questions: Sequence[FilingQuestion], done: Sequence[Round]
) -> dict[str, int]:
    """Return, per view, held-out hits gained by the view (pooled over rounds and settings)."""
    gains = {}
    for view in PageWeights().views():
        gain = 0
        for one in done:
            held = [q for q in questions if q.fold == one.held_out]
            without = replace(one.weights, **{view: 0.0})
            gain += sum(hits(views, held, one.weights).values())
            gain -= sum(hits(views, held, without).values())
        gains[view] = gain
    return gains


SYSTEM_GRID = (0.0, 0.5, 1.0, 2.0)
"""Weights tried for a system's own page order against the page ranking (`PageFusion`)."""

Rankings = Mapping[str, Mapping[str, Sequence[str]]]
"""setting -> qid -> a system's page ranking ("DOC#PAGE", best first)."""


def fused_pages(
    views: PageViews, system_pages: Sequence[str], weights: PageWeights, system: float
) -> list[str]:
    """Return the pages in the order `tools.page_fusion.page_first` puts them."""
    ranked = [page.key for page in fuse_views(views, weights, PAGE_DEPTH)]
    return [key for key, _ in weighted_order([(system_pages, system), (ranked, 1.0)])]


def system_rounds(
    views: Views,
    questions: Sequence[FilingQuestion],
    own: Rankings,
    by_fold: Mapping[str, PageWeights],
) -> dict[str, float]:
    """Return, per held-out fold, the system weight chosen on the other two folds.

    `own` is the system's page ranking without page order; each round fuses it with the
    page ranking of its own weights (`by_fold`), as the system would, and keeps the weight
    with the most page-R@5 hits on its tuning folds (ties: the higher MRR@10, then the
    lower weight).
    """
    chosen = {}
    for tuned_on, held_out in rounds():
        tuning = [q for q in questions if q.fold in tuned_on]
        chosen[held_out] = max(
            SYSTEM_GRID,
            key=lambda system: _fusion_score(views, tuning, own, by_fold[held_out], system),
        )
    return chosen


def _fusion_score(
    views: Views,
    questions: Sequence[FilingQuestion],
    own: Rankings,
    weights: PageWeights,
    system: float,
) -> tuple[int, float, float]:
    """Hits, then MRR@10, then the lower system weight: the order `system_rounds` prefers."""
    found = _hits_and_mrr(
        (fused_pages(by_qid[q.qid], own[setting][q.qid], weights, system), q.gold_pages)
        for setting, by_qid in views.items()
        for q in questions
    )
    return (*found, -system)


def _reciprocal(pages: Sequence[str], gold: frozenset[str]) -> float:
    return next((1.0 / (i + 1) for i, key in enumerate(pages[:10]) if key in gold), 0.0)
