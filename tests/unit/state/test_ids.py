import pytest

from state.ids import (
    COMPONENT_LETTERS,
    SUBCOMPONENT_KIND_OF_COMPONENT,
    SUBCOMPONENT_LETTERS,
    check_id,
    component_id,
    parent_of_subcomponent,
    subcomponent_id,
)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("paragraph", "d12::p2"), ("table", "d12::t2"), ("image", "d12::i2")],
)
def test_component_ids_use_one_letter_per_kind(kind: str, expected: str) -> None:
    assert component_id("d12", kind, 2) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("sentence", "d12::t2::s0"), ("row", "d12::t2::r0"), ("region", "d12::t2::o0")],
)
def test_subcomponent_ids_extend_their_component_id(kind: str, expected: str) -> None:
    assert subcomponent_id("d12::t2", kind, 0) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "component",
    [
        "d12::p0",
        "Marie_Curie::p3",
        # OTT-QA brings its own table ids, with separators inside: kept verbatim.
        "United_States_at_the_2000_Summer_Olympics::table::United_States_at_the_2000_3",
        "1._FC_Heidenheim::p0",
    ],
)
def test_parent_of_subcomponent_round_trips(component: str) -> None:
    for kind in ("sentence", "row", "region"):
        assert parent_of_subcomponent(subcomponent_id(component, kind, 7)) == component


def test_parent_of_a_plain_id_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a subcomponent id"):
        parent_of_subcomponent("Marie_Curie")


def test_letters_are_distinct_and_every_component_kind_has_a_subcomponent_kind() -> None:
    assert len(set(COMPONENT_LETTERS.values())) == len(COMPONENT_LETTERS)
    assert len(set(SUBCOMPONENT_LETTERS.values())) == len(SUBCOMPONENT_LETTERS)
    assert set(SUBCOMPONENT_KIND_OF_COMPONENT) == set(COMPONENT_LETTERS)
    assert set(SUBCOMPONENT_KIND_OF_COMPONENT.values()) == set(SUBCOMPONENT_LETTERS)


def test_check_id_strips_and_rejects_empty_or_control_characters() -> None:
    assert check_id("  warsaw \n", "doc_id") == "warsaw"
    with pytest.raises(ValueError, match="doc_id is empty"):
        check_id("   ", "doc_id")
    with pytest.raises(ValueError, match="control characters"):
        check_id("war\x00saw", "component_id")
