"""Late-interaction edge scoring on hand-made vectors: Eq. 6, dummy edges, one-sided matches."""

from __future__ import annotations

import numpy as np
import pytest

from nodes.lilac.beam import rank_components
from nodes.lilac.late_interaction import Edge, Unit, beam_components, score_edges, top_units
from tools.late_interaction import build_profiles


def _profiles(rows: dict[str, list[list[float]]]):
    """Profiles from per-component rows of subquery similarities (rows × subqueries)."""
    owners = [cid for cid, sims in rows.items() for _ in sims]
    row_ids = [f"{cid}::s{i}" for cid, sims in rows.items() for i in range(len(sims))]
    scores = np.array([row for sims in rows.values() for row in sims], dtype=np.float32)
    return build_profiles(owners, row_ids, scores)


def test_profiles_take_the_max_per_subquery_over_a_components_rows():
    profiles = _profiles({"A": [[0.1, 0.9], [0.7, 0.2]], "B": [[0.3, 0.4]]})
    assert profiles.components == ["A", "B"]
    np.testing.assert_allclose(profiles.best, [[0.7, 0.9], [0.3, 0.4]])
    np.testing.assert_allclose(profiles.totals(), [1.6, 0.7])
    assert profiles.evidence(["A"]) == ["A::s1", "A::s0"]


def test_profiles_reject_rows_of_a_component_that_are_not_contiguous():
    with pytest.raises(ValueError, match="contiguous"):
        build_profiles(["A", "B", "A"], ["a", "b", "c"], np.zeros((3, 1)))


def test_edge_score_is_the_sum_over_subqueries_of_the_max_over_both_endpoints():
    rng = np.random.default_rng(7)
    subqueries = rng.normal(size=(3, 8))
    vectors = {cid: rng.normal(size=(n, 8)) for cid, n in (("A", 4), ("B", 2))}
    profiles = build_profiles(
        [cid for cid, vecs in vectors.items() for _ in vecs],
        [f"{cid}{i}" for cid, vecs in vectors.items() for i in range(len(vecs))],
        np.concatenate(list(vectors.values())) @ subqueries.T,
    )
    (unit,) = score_edges(profiles, [Edge("A", "B", "inter")])
    union = np.concatenate(list(vectors.values())) @ subqueries.T
    expected = union.max(axis=0).sum()
    single = max((vecs @ subqueries.T).max(axis=0).sum() for vecs in vectors.values())
    if expected > single + 1e-6:
        assert unit.components == ("A", "B")
        assert unit.score == pytest.approx(expected, rel=1e-5)
    else:
        assert len(unit.components) == 1


def test_an_edge_whose_endpoints_answer_different_subqueries_keeps_both():
    # A answers subquery 0 (the table row), B answers subquery 1 (the linked passage).
    profiles = _profiles({"A": [[0.9, 0.1]], "B": [[0.2, 0.8]]})
    (unit,) = score_edges(profiles, [Edge("A", "B", "inter")])
    assert unit.components == ("A", "B")
    assert unit.score == pytest.approx(1.7)
    assert not unit.one_sided


def test_a_one_sided_match_returns_only_the_matching_endpoint():
    # A is best on both subqueries: B adds nothing, so the edge scores as A alone.
    profiles = _profiles({"A": [[0.9, 0.8]], "B": [[0.2, 0.3]]})
    units = score_edges(profiles, [Edge("B", "A", "intra")])
    assert units == [Unit(("A",), "intra", pytest.approx(1.7), True)]


def test_an_isolated_component_is_scored_through_its_dummy_edge():
    profiles = _profiles({"C": [[0.4, 0.5], [0.6, 0.1]]})
    (unit,) = score_edges(profiles, [Edge("C", None, "dummy")])
    assert unit.components == ("C",)
    assert unit.kind == "dummy"
    assert unit.score == pytest.approx(1.1)
    assert not unit.one_sided


def test_edges_to_components_without_vectors_are_dropped():
    profiles = _profiles({"A": [[0.5]]})
    assert score_edges(profiles, [Edge("A", "missing", "inter")]) == []


def test_top_units_merges_an_edge_with_its_reverse_and_keeps_the_beam_width():
    units = [
        Unit(("A", "B"), "intra", 1.5, False),
        Unit(("B", "A"), "inter", 1.2, False),
        Unit(("C",), "dummy", 1.4, False),
        Unit(("D",), "inter", 0.9, True),
    ]
    beam = top_units(units, width=2)
    assert [u.components for u in beam] == [("A", "B"), ("C",)]
    assert [u.components for u in top_units(units, width=10)] == [("A", "B"), ("C",), ("D",)]


def test_beam_components_are_distinct_in_beam_order_up_to_the_limit():
    beam = [Unit(("A", "B"), "intra", 2.0, False), Unit(("B", "C"), "inter", 1.0, False)]
    assert beam_components(beam, limit=10) == ["A", "B", "C"]
    assert beam_components(beam, limit=2) == ["A", "B"]


def test_ranking_flattens_the_beam_in_hop_order_and_pads_with_profiled_components():
    profiles = _profiles({"A": [[0.9, 0.1]], "B": [[0.2, 0.8]], "C": [[0.3, 0.3]]})
    beam = [Unit(("B", "A"), "inter", 1.7, False)]  # B was expanded and reached A
    ranking = rank_components(beam, profiles, k=3)
    assert [c for c, _ in ranking] == ["B", "A", "C"]
    assert ranking[0][1] == pytest.approx(1.7)
    assert ranking[2][1] == pytest.approx(0.6)
    assert len(rank_components(beam, profiles, k=1)) == 1


def test_nothing_to_profile_gives_no_units_and_an_empty_ranking():
    profiles = build_profiles([], [], np.zeros((0, 2)))
    assert profiles.best.shape == (0, 2)
    assert score_edges(profiles, []) == []
    assert rank_components([], profiles, k=3) == []
