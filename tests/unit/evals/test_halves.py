import pytest

from evals.halves import Estimate, bootstrap, half_of, paired_difference, split_scores


def test_halves_are_stable_and_roughly_even() -> None:
    qids = [f"q{i}" for i in range(1000)]
    halves = [half_of(q) for q in qids]
    assert halves == [half_of(q) for q in qids]  # a function of the id only
    assert 400 < halves.count("tune") < 600
    assert half_of("q1") != half_of("q0") or half_of("q2") != half_of("q0")


def test_bootstrap_interval_contains_the_mean_and_shrinks_with_n() -> None:
    small = bootstrap([1.0, 0.0] * 10)
    large = bootstrap([1.0, 0.0] * 500)
    assert small.low < 0.5 < small.high and small.mean == 0.5 and small.n == 20
    assert large.high - large.low < small.high - small.low
    assert bootstrap([1.0] * 7) == Estimate(1.0, 1.0, 1.0, 7)
    with pytest.raises(ValueError, match="empty"):
        bootstrap([])


def test_paired_difference_sees_what_separate_intervals_hide() -> None:
    base = [float(i % 3 == 0) for i in range(60)]
    better = [1.0 if i in (1, 2, 4, 5) else b for i, b in enumerate(base)]
    diff = paired_difference(better, base)
    assert diff.mean == pytest.approx(4 / 60) and diff.low > 0  # always ahead, never behind
    assert bootstrap(better).low < bootstrap(base).high  # separate intervals overlap
    with pytest.raises(ValueError, match="pair"):
        paired_difference([1.0], [1.0, 0.0])
    assert f"{diff:+}".startswith("+0.067 [+")


def test_split_scores_by_half() -> None:
    scores = {f"q{i}": {"R@10": float(i)} for i in range(10)}
    halves = split_scores(scores, "R@10")
    assert set(halves["tune"]) | set(halves["report"]) == set(scores)
    assert not set(halves["tune"]) & set(halves["report"])
