"""A question's company, period and form route it to the filings it asks about."""

from __future__ import annotations

import pytest

from tools.filing_identity import FilingIdentity
from tools.filing_query import read_question
from tools.filing_routing import company_names, names_question, route

FILINGS = {
    "ACME_2021_10K": FilingIdentity("Acme Widgets, Inc.", (), "10-K", 2021, 0, "2021-12-31"),
    "ACME_2022_10K": FilingIdentity("Acme Widgets, Inc.", (), "10-K", 2022, 0, "2022-12-31"),
    "ACME_2023Q2_10Q": FilingIdentity("Acme Widgets, Inc.", (), "10-Q", 2023, 2, "2023-06-30"),
    "ACME_2023_8K": FilingIdentity("Acme Widgets, Inc.", (), "8-K", 2023, 0, "2023-05-26"),
    "ACME_2022Q4_RELEASE": FilingIdentity(
        "Acme Widgets, Inc.", ("ACW",), "earnings release", 2022, 4, "", "2023-02-01"
    ),
    "AMEX_2022_10K": FilingIdentity("American Express Company", (), "10-K", 2022, 0, "2022-12-31"),
    "JJ_2022_10K": FilingIdentity("JOHNSON & JOHNSON", (), "10-K", 2022, 0, "2023-01-01"),
}


@pytest.mark.parametrize(
    ("registrant", "name"),
    [
        ("The Boeing Company", "boeing"),
        ("PepsiCo, Inc.", "pepsico"),
        ("ADVANCED MICRO DEVICES, INC.", "amd"),
        ("JOHNSON & JOHNSON", "jnj"),
        ("American Express Company", "amex"),
        ("MGM Resorts International", "mgm"),
        ("Lowe's Companies, Inc.", "lowes"),
        ("LOWE\u2019S COMPANIES, INC.", "lowe's companies"),
    ],
)
def test_company_names(registrant: str, name: str) -> None:
    assert name in company_names(registrant)


def test_generic_first_word_is_no_name() -> None:
    assert "american" not in company_names("American Express Company")


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("What was Acme's FY2021 revenue?", "ACME_2021_10K"),
        ("What is the capex of Acme Widgets in FY2022?", "ACME_2022_10K"),
        ("What did Acme report as of Q2 of FY2023?", "ACME_2023Q2_10Q"),
        ("By how much did Acme raise its credit line on May 26, 2023?", "ACME_2023_8K"),
        ("What was Acme's adjusted EPS for FY2022?", "ACME_2022Q4_RELEASE"),
        ("Is Acme's business cyclical?", "ACME_2022_10K"),  # no year: the latest periodic report
        ("How did AMEX retain card members in 2022?", "AMEX_2022_10K"),
        ("Are JnJ's FY2022 financials that of a high growth company?", "JJ_2022_10K"),
        ("What did ACW guide for 2023?", "ACME_2022Q4_RELEASE"),  # ticker; looking ahead
    ],
)
def test_route_puts_the_asked_filing_first(question: str, first: str) -> None:
    found = route(FILINGS, question)
    assert found is not None and found.documents[0] == first


def test_question_naming_no_company_is_not_routed() -> None:
    assert route(FILINGS, "What drove the reduction in SG&A expense in FY2023?") is None


def test_read_question_periods_and_forms() -> None:
    asked = read_question("What was the key agenda of the AMCOR's 8k filing dated 1st July 2022?")
    assert (asked.event_date, asked.forms[0], asked.year) == ("2022-07-01", "8-K", 2022)
    asked = read_question("Which debt was largest in H1 FY2023 and FY2022?")
    assert (asked.quarter, asked.years, asked.year) == (2, (2023, 2022), 2023)


@pytest.mark.parametrize(
    ("question", "quarter", "year"),
    [("In 3Q22, what was the operating margin?", 3, 2022), ("What was Q4'21 revenue?", 4, 2021)],
)
def test_a_quarter_written_with_its_year(question: str, quarter: int, year: int) -> None:
    asked = read_question(question)
    assert (asked.quarter, asked.year) == (quarter, year)


def test_a_period_end_date_is_no_event() -> None:
    asked = read_question("As of December 31, 2020, what were Acme's total assets?")
    assert (asked.event_date, asked.forms, asked.year) == ("", (), 2020)
    assert (
        route(FILINGS, "As of December 31, 2021, what were Acme's total assets?").documents[0]
        == "ACME_2021_10K"
    )
    event = read_question("As of May 26, 2023, how much may Acme borrow?")
    assert (event.event_date, event.forms) == ("2023-05-26", ("8-K",))


def test_a_short_name_counts_only_when_written_as_a_name() -> None:
    best_buy = {"BBY_2023_10K": FilingIdentity("BEST BUY CO., INC.", (), "10-K", 2023)}
    assert route(best_buy, "What is the best measure of liquidity in FY2023?") is None
    found = route(best_buy, "What was Best's FY2023 revenue?")
    assert found is not None and found.documents == ("BBY_2023_10K",)
    assert "jpmorgan chase" in company_names("JPMorgan Chase & Co.")


def test_a_name_with_an_apostrophe_is_found_however_the_question_writes_it() -> None:
    lowes = FilingIdentity("LOWE\u2019S COMPANIES, INC.", (), "10-K", 2022, 0, "2023-02-03")
    for written in ("Lowe's", "Lowe\u2019s", "Lowes"):
        assert names_question(lowes, f"What was {written} FY2022 capital expenditure?")
    assert not names_question(lowes, "What were the lows of FY2022?")
