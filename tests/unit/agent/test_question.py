"""The question is read once: one analysis, kept in a run's state, read by registered rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_runs import build_pages, final_state
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from test_superlatives import DOCUMENTS, QUESTION, TABLE

from nodes.core.question import QuestionAnalysis, analysis_in, analyze_question
from nodes.core.question_rules import RULES, rule_scores, rule_weights
from state.fif_context import FiFContext
from state.tuning import FiFTuning
from tools.corpus_index import open_index
from tools.values import date_value, event_date, number_value, ordinal_rank

ANALYSES = [
    # question, field, expected
    ("Who was the second tallest player drafted in 2008?", "ordinals", (2,)),
    ("Who was the second tallest player drafted in 2008?", "years", (2008,)),
    ("Is Robert Young older than Vincent van Gogh?", "entities",
     ("Robert Young", "Vincent van Gogh")),
    ("Which came first, the Cotula or The Exies?", "entities", ("Cotula", "Exies")),
    ("What is the 3rd most populous city founded 2 June 1961?", "dates", ("2 June 1961",)),
    ("What is the 3rd most populous city founded 2 June 1961?", "ordinals", (3,)),
    ("How many of the 1,200 seats were won?", "numbers", ("1200",)),
    ("Who founded the club that plays at Pier Park?", "terms",
     ("founded", "club", "plays", "pier", "park")),
]  # fmt: skip


@pytest.mark.parametrize(("question", "field", "expected"), ANALYSES)
def test_the_analysis_reads_what_the_question_states(
    question: str, field: str, expected: object
) -> None:
    assert getattr(analyze_question(question), field) == expected


@pytest.mark.parametrize(
    ("question", "kind", "compares"),
    [
        ("Is Robert Young older than Vincent van Gogh?", "yesno", True),
        ("Which came first, the Cotula or The Exies?", "choice", True),
        ("When was the club founded?", "date", False),
        ("Who founded the club?", "person", False),
    ],
)
def test_the_expected_answer_and_comparison(question: str, kind: str, compares: bool) -> None:
    analysis = analyze_question(question)
    assert (analysis.answer.kind, analysis.compares) == (kind, compares)


def test_superlative_and_period_are_part_of_the_one_analysis() -> None:
    analysis = analyze_question("What was the lowest revenue in Q2 of FY2023?")
    assert analysis.superlative is not None and analysis.superlative.direction == "min"
    assert (analysis.period.years, analysis.period.quarter) == ((2023,), 2)
    assert analyze_question("Who founded the club that plays at Pier Park?").superlative is None


def test_the_analysis_survives_a_checkpoint_unchanged() -> None:
    analysis = analyze_question("Which came first, the second tallest tower or the Cotula in 1961?")
    serde = JsonPlusSerializer()
    stored = serde.loads_typed(serde.dumps_typed(analysis.as_state()))
    assert all(
        isinstance(value, str | int | float | bool | list | dict | None)
        for value in stored.values()
    )
    assert QuestionAnalysis.from_state(stored) == analysis
    assert analysis_in({"question": "ignored", "analysis": stored}) == analysis
    assert analysis_in({"question": analysis.text}) == analysis  # no stored analysis: read it


VALUES = [
    (ordinal_rank, "second", 2),
    (ordinal_rank, "9th", 9),
    (ordinal_rank, "seconds", None),
    (number_value, "6 ' 2", 74.0),
    (number_value, "-1,234.5 m", -1234.5),
    (number_value, "none", None),
    (date_value, "September 3 , 1991", (1991.0, 9.0, 3.0)),
    (date_value, "2023-06-30", (2023.0, 6.0, 30.0)),
    (date_value, "1979", (1979.0, 0.0, 0.0)),
    (date_value, "n/a", None),
]


@pytest.mark.parametrize(("read", "text", "expected"), VALUES)
def test_values_have_one_reader(read: object, text: str, expected: object) -> None:
    assert read(text) == expected  # type: ignore[operator]


def test_event_dates_day_first_or_month_first() -> None:
    assert str(event_date("the 8-K dated 1st July 2022")) == "2022-07-01"
    assert str(event_date("as of June 30, 2023")) == "2023-06-30"
    assert event_date("in 2023") is None


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder, index_dir = (tmp_path_factory.mktemp(n) for n in ("rules", "rules_index"))
    return build_pages(folder, index_dir, DOCUMENTS)


RULE_CASES = [
    # question, rule weights, row orders lifted (and by how much)
    (QUESTION, {"superlative": 0.5}, {2: 0.5}),
    ("the team with the second largest capacity", {"superlative": 2.0}, {1: 2.0}),
    ("the youngest club by date founded", {"superlative": 1.0}, {2: 1.0}),
    (QUESTION, {"superlative": 0.0}, {}),  # weight 0 turns the rule off
    ("the team that plays at Lion Hall", {"superlative": 1.0}, {}),  # no superlative
    ("the team with the most titles", {"superlative": 1.0}, {}),  # no column it orders by
]


@pytest.mark.parametrize(("question", "weights", "lifted"), RULE_CASES)
def test_registered_rules_lift_the_rows_the_question_singles_out(
    league: Path, question: str, weights: dict[str, float], lifted: dict[int, float]
) -> None:
    graph = open_index(league).graph
    rows = graph.children(TABLE)
    scores = rule_scores(graph, analyze_question(question), rows, weights)
    assert {int(graph.node(row).attrs["order"]): value for row, value in scores.items()} == lifted


def test_rule_weights_come_from_the_tuning_object() -> None:
    assert rule_weights(FiFTuning(superlative_weight=1.5)) == {"superlative": 1.5}
    assert rule_weights(object()) == dict.fromkeys((rule.name for rule in RULES), 0.0)
    assert all(rule.weight_field in FiFTuning.model_fields for rule in RULES)


def test_a_fif_run_keeps_the_analysis_it_read(league: Path) -> None:
    state = final_state(QUESTION, FiFContext(index_dir=str(league)))
    assert QuestionAnalysis.from_state(state["analysis"]) == analyze_question(QUESTION)
