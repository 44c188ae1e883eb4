"""Offline answer matching on financial answer shapes: must-match and must-not-match tables."""

from __future__ import annotations

import pytest

from evals.answer_match import is_answered, match_answer
from evals.answer_numbers import extract_quantities, unit_hint

IN_MILLIONS = "What is the year end FY2018 net PP&E (in USD millions)?"
IN_BILLIONS = "What is the FY2021 capital expenditure amount (in USD billions)?"
RATIO = "What is the FY2021 inventory turnover ratio? Round to two decimal places."
OPEN = "How did the company's restructuring costs change?"

MUST_MATCH = [
    ("1,234.5 million USD (p. 45)", "$1234.50", IN_MILLIONS),
    ("12,645", "$12645.00", IN_MILLIONS),
    ("$12,645 million", "$12645.00", IN_MILLIONS),
    ("$12.645 billion", "$12645.00", IN_MILLIONS),
    ("$12.6 billion", "$12645.00", IN_MILLIONS),  # 0.4% off
    ("12645000000", "$12645.00", IN_MILLIONS),  # written in full
    ("USD 12,645m", "$12645.00", IN_MILLIONS),
    ("$1.577 billion", "$1,577 million", OPEN),
    ("1577", "$1.577 billion", OPEN),  # bare: tried at every scale
    ("4,603 million USD", "$4.60", IN_BILLIONS),
    ("$4.6bn", "$4.60", IN_BILLIONS),
    ("10.27%", "10.3%", OPEN),
    ("The margin was 55.1 percent", "55.1%", OPEN),
    ("0.551", "55.1%", OPEN),  # a fraction
    ("3.4602", "3.46", RATIO),
    ("2.66 times", "JnJ sold its inventory 2.7 times in FY2022.", OPEN),  # rounds to 2.7
    ("2.7x", "2.7 times", OPEN),
    ("(14.76)%", "Effective tax rate in FY2022 was 0.62%, compared to -14.76% in FY2021.", OPEN),
    ("a decline of 14.8%", "-14.76%", OPEN),  # signs are words in prose
    ("$(411) million", "Pepsico's restructuring costs in FY2022 amounted to $411 million .", OPEN),
    ("$400 million", "$400,000,000 increase.", OPEN),
    ("2,018 mn", "AMCOR's Adj. EBITDA was $2,018mn in FY 2023", OPEN),
    ("about 20.3 billion dollars", "a gain of approximately $20 billion", OPEN),  # gold rounded
    ("Net PP&E was $12,645 million in FY2018 (10-K, page 52, Note 7).", "$12645.00", IN_MILLIONS),
    ("It sold 3.3 billion units, about 90% of EBITDAR", "contributed ~90% of EBITDAR", OPEN),
    ("25 bps", "0.25%", OPEN),
    ("16,525.0 million USD [NIKE_2019_10K#31]", "$16525.00", IN_MILLIONS),
    ("16.525 billion USD (pages 30-31)", "$16525.00", IN_MILLIONS),
]

MUST_NOT_MATCH = [
    ("$303 thousand", "$303.00", "Answer in USD millions."),  # the question fixes the unit
    ("12.645", "$12645.00", IN_MILLIONS),
    ("$16,525 thousand", "$16525.00", IN_MILLIONS),
    ("31 [NIKE_2019_10K#16525]", "$16525.00", IN_MILLIONS),  # a page id is not the figure
    ("$1,250 million", "$1235.00", OPEN),  # 1.2% off
    ("$1.3 billion", "$1577.00", IN_MILLIONS),
    ("10.6%", "10.3%", OPEN),
    ("0.6%", "0.62%", OPEN),  # less precise than the gold
    ("$55.1 million", "55.1%", OPEN),  # money is not a percent
    ("2.7x", "$2.70", OPEN),
    ("FY2022 net sales", "$2022.00", IN_MILLIONS),  # a fiscal year label is not a number
    ("See page 45 of the 10-K", "$45.00", IN_MILLIONS),  # a page citation is not one either
    ("Total current assets 16,525 15,134 14,000 13,000 12,000", "$12000.00", IN_MILLIONS),
    ("", "$303.00", IN_MILLIONS),
    ("No answer found", "4.2%", OPEN),
    ("Revenue grew strongly", "4.2%", OPEN),
]


@pytest.mark.parametrize(("prediction", "gold", "question"), MUST_MATCH)
def test_numbers_that_must_match(prediction: str, gold: str, question: str) -> None:
    verdict = match_answer(prediction, [gold], question)
    assert verdict.correct, verdict.reason
    assert verdict.method == "number"


@pytest.mark.parametrize(("prediction", "gold", "question"), MUST_NOT_MATCH)
def test_numbers_that_must_not_match(prediction: str, gold: str, question: str) -> None:
    assert not match_answer(prediction, [gold], question).correct


def test_relative_tolerance_is_one_percent_of_the_gold() -> None:
    assert match_answer("$1,009.9 million", ["$1,000 million"]).correct
    assert not match_answer("$1,011 million", ["$1,000 million"]).correct
    assert match_answer("$0 million", ["$0.00"]).correct


@pytest.mark.parametrize(
    ("prediction", "gold", "correct", "method"),
    [
        ("Yes, it did.", "Yes", True, "polarity"),
        (
            "Yes",
            "Yes. Boeing has an improving gross margin profile as of FY2022.",
            True,
            "polarity",
        ),
        ("No.", "Yes", False, "polarity"),
        ("None", "No, Pepsico is not involved in material legal battles.", False, "polarity"),
        ("The largest liability was customer deposits.", "Customer deposits", True, "text"),
        ("Card member loans", "Customer deposits", False, "text"),
        ("United States, EMEA, APAC and LACC", "United States, EMEA, APAC, and LACC", True, "text"),
        (
            "Amcor leads packaging worldwide.",
            "Amcor is a global leader in packaging production for various use cases.",
            False,
            "undecided",
        ),
    ],
)
def test_gold_without_numbers_falls_back_to_polarity_or_text(
    prediction: str, gold: str, correct: bool, method: str
) -> None:
    verdict = match_answer(prediction, [gold])
    assert (verdict.correct, verdict.method) == (correct, method)


def test_any_gold_answer_may_match() -> None:
    assert match_answer("Paris", ["London", "Paris"]).correct


@pytest.mark.parametrize(
    "prediction",
    [
        "",
        "   ",
        None,
        "fail",
        "FAIL: no finding",
        "No answer found",
        "I don't know",
        "The data is insufficient information to compute it",
        "Cannot be determined",
        "No consistent answer: the evidence found contradicts itself.",
        "N/A",
    ],
)
def test_refusals_are_not_answers(prediction: str | None) -> None:
    assert not is_answered(prediction)
    verdict = match_answer(prediction, ["$1.00"])
    assert (verdict.answered, verdict.correct, verdict.method) == (False, False, "unanswered")


@pytest.mark.parametrize("prediction", ["There are none", "0", "No.", "$12,645 million"])
def test_short_answers_are_answers(prediction: str) -> None:
    assert is_answered(prediction)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("(1,234)", [-1234.0]),
        ("$(45.2)", [-45.2]),
        ("(1) usual and customary pricing litigation", []),
        ("on May 26, 2023 under the 8-K", []),
        ("1st July 2022, Item 7, Q2, FY2021, DOC_2023_10K#45", []),
        ("0.67 times to 0.69 times (3.4% jump)", [0.67, 0.69, 3.4]),
        ("737MAX and 787 aircraft", [787.0]),
        ("Notes 4.25% due 2026", [4.25]),
        ("pages 45-46 show 1,577", [1577.0]),
        ("One-time COVID-19 costs over the 12 months ended May 1", []),
        ("the 737, 777X and 787", [737.0, 787.0]),
        ("2.5X EBITDA, DPO of 63.86 days", [2.5, 63.86]),
    ],
)
def test_what_counts_as_a_number(text: str, values: list[float]) -> None:
    assert [q.value for q in extract_quantities(text)] == values


def test_scale_kinds_and_hints() -> None:
    (quantity,) = extract_quantities("US$ 3.5bn")
    assert (quantity.value, quantity.scale, quantity.kind) == (3.5, 1e9, "money")
    assert extract_quantities("0.01$ per share")[0].kind == "money"
    assert extract_quantities("2.7x")[0].kind == "ratio"
    assert unit_hint("Answer in USD millions.") == 1e6
    assert unit_hint("(in USD billions)") == 1e9
    assert unit_hint("How many stores opened?") is None
