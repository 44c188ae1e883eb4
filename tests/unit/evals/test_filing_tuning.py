"""Fold-honest tuning: weights chosen on two folds, a view kept only if it helps held out."""

from __future__ import annotations

import numpy as np

from evals.filing_eval import FilingQuestion, figures, table_rows
from evals.filing_tuning import fused_pages, hits, system_rounds, tune, view_test
from tools.filing_pages import FilingPage
from tools.page_ranking import PageViews, PageWeights, fuse_views

VIEWS = ("chunk", "words", "lines", "periods", "statement", "filing", "passage")


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


def test_a_tie_in_hits_goes_to_the_weights_that_rank_the_gold_page_higher() -> None:
    """Gold sits third by chunk (a hit either way); only the periods view marks it."""

    def views() -> PageViews:
        found = views_for(0)
        found.values["statement"][:] = 0.0
        found.values["periods"][2] = 1.0
        return PageViews(found.pages, found.values, found.best_chunk)

    questions = [question(f"{fold}{n}", fold, 2) for fold in "ABC" for n in range(2)]
    by_setting = {"single": {q.qid: views() for q in questions}}
    done = tune(by_setting, questions)
    assert all(one.weights.periods > 0 for one in done)  # the defaults keep it at 0
    assert all(one.held_out_hits["single"] == (2, 2) for one in done)


def test_a_system_order_is_weighed_only_where_it_gains_on_the_tuning_folds() -> None:
    """The page ranking misses gold (page 5 is last by chunk; no statement mark)."""

    def views() -> PageViews:
        found = views_for(0)
        found.values["statement"][:] = 0.0
        return PageViews(found.pages, found.values, found.best_chunk)

    by_setting = {"shared": {q.qid: views() for q in QUESTIONS}}
    by_fold = {fold: PageWeights() for fold in "ABC"}
    finds_gold = {"shared": {q.qid: ["D#5"] for q in QUESTIONS}}
    assert system_rounds(by_setting, QUESTIONS, finds_gold, by_fold) == dict.fromkeys("ABC", 0.5)
    assert fused_pages(by_setting["shared"]["A0"], ["D#5"], PageWeights(), 0.5)[0] == "D#5"
    misses = {"shared": {q.qid: ["D#4"] for q in QUESTIONS}}
    assert system_rounds(by_setting, QUESTIONS, misses, by_fold) == dict.fromkeys("ABC", 0.0)
