"""Fold-honest tuning: weights chosen on two folds, a view kept only if it helps held out."""

from __future__ import annotations

import numpy as np

from evals.filing_eval import FilingQuestion, figures, table_rows
from evals.filing_tuning import hits, tune, view_test
from tools.filing_pages import FilingPage
from tools.page_ranking import PageViews, PageWeights, fuse_views

VIEWS = ("chunk", "words", "lines", "periods", "statement", "filing")


def views_for(gold: int) -> PageViews:
    """Six pages; the chunk view ranks page 0 first, the statement view marks the gold page."""
    pages = [FilingPage(f"D#{n}", "D") for n in range(6)]
    values = {view: np.zeros(6) for view in VIEWS}
    values["chunk"] = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    values["statement"][gold] = 1.0
    return PageViews(pages, values, [""] * 6)


def question(qid: str, fold: str, gold: int) -> FilingQuestion:
    return FilingQuestion(qid, "q", frozenset({f"D#{gold}"}), ("D",), fold)


QUESTIONS = [question(f"{fold}{n}", fold, 5) for fold in "ABC" for n in range(2)]
VIEWS_BY_SETTING = {"shared": {q.qid: views_for(5) for q in QUESTIONS}}


def test_fusion_orders_by_weighted_views() -> None:
    without = fuse_views(views_for(5), PageWeights(statement=0.0))
    assert [p.key for p in without[:2]] == ["D#0", "D#1"]
    with_statement = fuse_views(views_for(5), PageWeights(statement=1.0), limit=1)
    assert [p.key for p in with_statement] == ["D#5"]


def test_rounds_hold_each_fold_out_and_the_view_test_credits_the_statement() -> None:
    done = tune(VIEWS_BY_SETTING, QUESTIONS)
    assert sorted(one.held_out for one in done) == ["A", "B", "C"]
    assert all(one.weights.statement > 0 for one in done)
    assert all(one.held_out_hits["shared"] == (2, 2) for one in done)
    gains = view_test(VIEWS_BY_SETTING, QUESTIONS, done)
    assert gains["statement"] == 6 and gains["periods"] == 0
    assert hits(VIEWS_BY_SETTING, QUESTIONS, PageWeights(statement=0.0)) == {"shared": 0}


def test_figures_per_fold_and_worst() -> None:
    rankings = {q.qid: ["D#5"] if q.fold != "B" else ["D#0"] for q in QUESTIONS}
    result = figures(QUESTIONS, rankings)
    assert result.recall["all"] == 4 / 6 and result.worst() == "B"
    assert result.right_first["all"] == 1.0
    assert "| pages | shared |" in "\n".join(table_rows([("pages", "shared", result)]))
