"""ReAgent's knowledge-set functions: slots, support, contradiction, minimal conflict sets."""

from __future__ import annotations

from typing import Any

import pytest

from nodes.reagent.knowledge import (
    consistent,
    minimal_conflict_set,
    offline_assertion,
    slot_contradicts,
    slot_of,
    supported,
)
from state.reagent_state import Assertion


def assertion(unit: str, text: str, *, title: str = "Curie Museum", row: bool = False) -> Assertion:
    return offline_assertion(
        agent="q0",
        subquestion=0,
        subquestion_text="When was the Curie Museum opened?",
        title=title,
        unit_text=text,
        unit_is_row=row,
        evidence=[unit.rsplit("::", 1)[0], unit],
        step=1,
    )


@pytest.mark.parametrize(
    ("text", "asked", "slot"),
    [
        ("The museum was opened in 1934 in Paris.", "When was it opened?", ("opened", "1934")),
        ("Its population is 5,000.", "What is the population?", ("population", "5000")),
        ("Opened in 1934.", "Was it opened in 1934?", ("", "")),  # no new value
        ("A museum of physics.", "What is it?", ("", "")),
    ],
)
def test_a_sentence_fills_the_slot_of_the_numbers_it_adds(text: str, asked: str, slot: Any):
    assert slot_of(text, "Curie Museum", asked) == slot


def test_the_same_slot_with_disjoint_values_contradicts():
    first = assertion("m::p0::s0", "The Curie Museum was opened in 1934.")
    second = assertion("m::p1::s0", "The Curie Museum opened in 1967.")
    same = assertion("m::p2::s0", "The Curie Museum was opened in 1934 by the city.")
    assert first["attribute"] == "opened"
    assert slot_contradicts(first, second)
    assert not slot_contradicts(first, same)


def test_table_rows_are_separate_entities():
    first = assertion("t::t0::r0", "Club: Lakeside | Founded: 1920", row=True)
    second = assertion("t::t0::r1", "Club: River Oars | Founded: 1931", row=True)
    assert first["entity"] != second["entity"]
    assert not slot_contradicts(first, second)


def test_an_assertion_is_supported_only_when_its_evidence_holds_the_key_terms():
    on_topic = assertion("m::p0::s0", "The Curie Museum was opened in 1934.")
    off_topic = assertion("w::p0::s0", "Warsaw lies on the Vistula.", title="Warsaw")
    question = "When was the Curie Museum opened?"
    assert supported(on_topic, question, 0.5)
    assert not supported(off_topic, question, 0.5)


def test_the_minimal_conflict_set_drops_assertions_not_needed_for_the_conflict():
    a = assertion("m::p0::s0", "The Curie Museum was opened in 1934.")
    b = assertion("m::p1::s0", "The Curie Museum opened in 1967.")
    c = assertion("m::p2::s0", "The Curie Museum has 3 rooms.")
    psi = minimal_conflict_set([c, a, b], slot_contradicts)
    assert {x["id"] for x in psi} == {a["id"], b["id"]}
    assert consistent([a, c], slot_contradicts)
    assert minimal_conflict_set([a, c], slot_contradicts) == []
