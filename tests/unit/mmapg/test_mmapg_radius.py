"""Radius retrieval: what is kept is within the pool's radius of its best, per modality."""

from __future__ import annotations

import pytest
from mmapg_nodes import evidence

from nodes.mmapg.radius import RadiusSettings, within_radius
from nodes.mmapg.retrieval import radius_split
from state.mmapg_state import MMAPGContext

SETTINGS = RadiusSettings(text_radius=0.1, image_radius=0.03, max_in_radius=5, shortlist_k=30)


def ids(items):
    return [item["component_id"] for item in items]


def test_a_candidate_outside_the_radius_is_not_kept():
    pool = [evidence("a::p0", 0.70), evidence("b::p0", 0.61), evidence("c::p0", 0.59)]
    inside, outside = within_radius(pool, 0.1, cap=10)
    assert ids(inside) == ["a::p0", "b::p0"]
    assert ids(outside) == ["c::p0"]


def test_the_radius_follows_the_best_score_not_an_absolute_level():
    low = [evidence("a::p0", 0.30), evidence("b::p0", 0.25), evidence("c::p0", 0.10)]
    inside, _ = within_radius(low, 0.1, cap=10)
    assert ids(inside) == ["a::p0", "b::p0"]


def test_the_cap_and_the_fixed_top_k_ablation():
    pool = [evidence(f"d{i}::p0", 0.9 - i * 0.01) for i in range(8)]
    inside, outside = within_radius(pool, 0.5, cap=3)
    assert len(inside) == 3 and len(outside) == 5
    fixed, rest = within_radius([evidence("far::p0", 0.1), *pool], 0.0, cap=3, fixed_top_k=4)
    assert ids(fixed) == ["d0::p0", "d1::p0", "d2::p0", "d3::p0"] and "far::p0" in ids(rest)


@pytest.mark.parametrize(
    ("pool", "kept"),
    [("image", ["i::i0"]), ("text", ["i::i0", "j::i0"]), ("target0", ["i::i0", "j::i0"])],
)
def test_each_modality_has_its_own_radius(pool, kept):
    candidates = [evidence("i::i0", 0.50), evidence("j::i0", 0.45)]
    inside, _ = radius_split(pool, candidates, SETTINGS)
    assert ids(inside) == kept


def test_the_context_sets_both_radii():
    settings = RadiusSettings.of(MMAPGContext(text_radius=0.2, image_radius=0.01))
    assert (settings.radius("text"), settings.radius("target"), settings.radius("image")) == (
        0.2,
        0.2,
        0.01,
    )
