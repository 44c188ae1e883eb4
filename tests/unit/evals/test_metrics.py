"""Metrics against hand-computed cases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from evals.metrics import (
    all_gold_recall_at_k,
    breakdown,
    exact_match,
    mrr_at_k,
    normalize_answer,
    pool,
    recall_at_k,
    retrieval_scores,
    token_f1,
)

RANKING = ["a", "b", "c", "d", "e", "f"]


@pytest.mark.parametrize(
    ("ranking", "gold", "k", "expected"),
    [
        (RANKING, {"a"}, 1, 1.0),
        (RANKING, {"b"}, 1, 0.0),
        (RANKING, {"b"}, 2, 1.0),
        (RANKING, {"f", "z"}, 5, 0.0),
        (RANKING, {"f", "z"}, 10, 1.0),
        (["a", "a", "a", "b"], {"b"}, 2, 1.0),  # duplicates count once
        ([], {"a"}, 10, 0.0),
        (RANKING, {"z"}, 10, 0.0),
    ],
)
def test_recall_at_k(ranking: list[str], gold: set[str], k: int, expected: float) -> None:
    assert recall_at_k(ranking, gold, k) == expected


@pytest.mark.parametrize(
    ("ranking", "gold", "k", "expected"),
    [
        (RANKING, {"a", "c"}, 2, 0.0),
        (RANKING, {"a", "c"}, 3, 1.0),
        (["a", "a", "c"], {"a", "c"}, 2, 1.0),  # the duplicate does not push c out
        (RANKING, {"a", "z"}, 10, 0.0),
        ([], {"a"}, 5, 0.0),
    ],
)
def test_all_gold_recall_at_k(ranking: list[str], gold: set[str], k: int, expected: float) -> None:
    assert all_gold_recall_at_k(ranking, gold, k) == expected


@pytest.mark.parametrize(
    ("ranking", "gold", "k", "expected"),
    [
        (RANKING, {"a"}, 10, 1.0),
        (RANKING, {"c", "e"}, 10, 1 / 3),
        (["x", "x", "x", "g"], {"g"}, 10, 1 / 2),  # rank among distinct ids
        (RANKING, {"f"}, 5, 0.0),
        ([], {"a"}, 10, 0.0),
    ],
)
def test_mrr_at_k(ranking: list[str], gold: set[str], k: int, expected: float) -> None:
    assert mrr_at_k(ranking, gold, k) == pytest.approx(expected)


def test_mrr_defaults_to_k_10() -> None:
    ranking = [f"x{i}" for i in range(10)] + ["g"]
    assert mrr_at_k(ranking, {"g"}) == 0.0
    assert mrr_at_k(ranking[:9] + ["g"], {"g"}) == pytest.approx(0.1)


@pytest.mark.parametrize("metric", [recall_at_k, all_gold_recall_at_k, mrr_at_k])
def test_empty_gold_is_an_error(metric: Callable[..., float]) -> None:
    with pytest.raises(ValueError, match="gold is empty"):
        metric(["a"], set(), 5)


def test_k_below_one_is_an_error() -> None:
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at_k(["a"], {"a"}, 0)


def test_retrieval_scores_for_a_two_hop_example() -> None:
    scores = retrieval_scores(["t", "x", "x", "y", "z", "w", "p"], {"t", "p"})
    assert scores == {
        "R@1": 1.0,
        "R@2": 1.0,
        "R@5": 1.0,
        "R@10": 1.0,
        "AllGold@5": 0.0,
        "AllGold@10": 1.0,
        "MRR@10": 1.0,
    }


def test_retrieval_scores_for_an_empty_ranking() -> None:
    scores = retrieval_scores([], {"g"})
    assert set(scores) == {"R@1", "R@2", "R@5", "R@10", "AllGold@5", "AllGold@10", "MRR@10"}
    assert all(value == 0.0 for value in scores.values())


@pytest.mark.parametrize(
    ("tokenised", "plain"),
    [
        ("February 17 , 1846", "February 17, 1846"),
        ("Booker T. & the M.G. 's", "Booker T. & the M.G.'s"),
        ("( Sittin ' On ) The Dock of the Bay", "(Sittin' On) the Dock of the Bay"),
        ("they do n't", "they don't"),
        ("W 2 - 1", "W 2-1"),
        ("1990 \u2013 1995", "1990\u20131995"),
        ("28 %", "28%"),
        ("$ 5 million", "$5 million"),
        ("U.S .", "U.S."),
    ],
)
def test_normalize_undoes_hybridqa_tokenisation(tokenised: str, plain: str) -> None:
    assert normalize_answer(tokenised) == normalize_answer(plain)


def test_normalize_is_squad_style() -> None:
    assert normalize_answer("  The  Eye, Network!  ") == "eye network"
    assert normalize_answer("An apple a day") == "apple day"
    assert normalize_answer("Théâtre  du Châtelet") == "théâtre du châtelet"


def test_exact_match_takes_the_best_answer() -> None:
    assert exact_match("February 17, 1846", ["17 February", "February 17 , 1846"]) == 1.0
    assert exact_match("the Canadian channel Teletoon", ["Teletoon"]) == 0.0


def test_token_f1_hand_computed() -> None:
    # prediction tokens: canadian channel teletoon; answer: teletoon -> P=1/3, R=1, F1=0.5
    assert token_f1("the Canadian channel Teletoon", ["Teletoon"]) == pytest.approx(0.5)
    assert token_f1("Teletoon", ["CBC", "the Teletoon"]) == 1.0
    assert token_f1("nothing shared", ["Teletoon"]) == 0.0
    assert token_f1("the", ["a"]) == 1.0  # both normalise to nothing


@pytest.mark.parametrize("answers", [[], "Teletoon"])
def test_qa_metrics_need_a_list_of_answers(answers: list[str]) -> None:
    with pytest.raises(ValueError, match="non-empty list"):
        exact_match("x", answers)
    with pytest.raises(ValueError, match="non-empty list"):
        token_f1("x", answers)


def test_pool_means_and_count() -> None:
    pooled = pool([{"R@1": 1.0, "MRR@10": 1.0}, {"R@1": 0.0, "MRR@10": 0.5}])
    assert pooled == {"R@1": 0.5, "MRR@10": 0.75, "n": 2.0}
    assert pool([]) == {"n": 0.0}


def test_pool_refuses_mismatched_keys() -> None:
    with pytest.raises(ValueError, match="different metric keys"):
        pool([{"R@1": 1.0}, {"R@2": 1.0}])


def test_breakdown_by_group() -> None:
    per_example = [{"R@1": 1.0}, {"R@1": 0.0}, {"R@1": 1.0}]
    groups = breakdown(per_example, ["2", "1", "2"])
    assert groups == {"1": {"R@1": 0.0, "n": 1.0}, "2": {"R@1": 1.0, "n": 2.0}}
    with pytest.raises(ValueError, match="one group label per example"):
        breakdown(per_example, ["1"])
