"""The company folds: fixed, disjoint, and a question's fold read from its filing's name."""

from __future__ import annotations

from evals.filing_folds import FOLDS, company_of, fold_of, rounds


def test_folds_are_disjoint_and_rounds_hold_each_fold_out_once() -> None:
    companies = [c for fold in FOLDS.values() for c in fold]
    assert len(companies) == len(set(companies)) == 13
    held = [held_out for tuned, held_out in rounds()]
    assert sorted(held) == sorted(FOLDS)
    assert all(held_out not in tuned and len(tuned) == 2 for tuned, held_out in rounds())


def test_company_and_fold_of_a_filing_name() -> None:
    assert company_of("JOHNSON_JOHNSON_2023_8K_dated-2023-08-30") == "JOHNSON_JOHNSON"
    assert company_of("AMCOR_2023Q2_10Q") == "AMCOR"
    assert fold_of(["PEPSICO_2022_10K"]) == "A"
    assert fold_of(["UNKNOWN_2022_10K"]) == ""
