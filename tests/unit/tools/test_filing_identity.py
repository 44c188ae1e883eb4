"""A filing's identity read from its first pages: cover, headline, periods."""

from __future__ import annotations

from datetime import date

import pytest

from tools.filing_identity import FilingIdentity, first_page_texts, read_identity
from tools.filing_periods import fiscal_quarter_of_10q, fiscal_year_of_end
from tools.values import parse_date

TEN_K = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
    "FORM 10-K",
    "☒ ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
    "For the fiscal year ended January 1, 2023",
    "For the transition period from to",
    "Commission file number 1-3215",
    "JOHNSON & JOHNSON",
    "(Exact name of registrant as specified in its charter)",
    "Common Stock, Par Value $1.00 JNJ New York Stock Exchange",
]


def test_ten_k_cover_gives_registrant_form_period_and_where() -> None:
    identity = read_identity([(0, line) for line in TEN_K])
    assert identity.registrant == "JOHNSON & JOHNSON"
    assert identity.form == "10-K"
    assert (identity.fiscal_year, identity.fiscal_quarter) == (2022, 0)  # a 52/53-week year
    assert identity.period_end == "2023-01-01"
    assert identity.tickers == ("JNJ",)
    assert any(note.startswith("registrant: page 0") for note in identity.read_from)


def test_registrant_skips_cover_lines_that_are_no_name() -> None:
    lines = [
        "FORM 10-K",
        "FOR THE TRANSITION PERIOD FROM TO .",
        "NIKE, Inc.",
        "FOR THE TRANSITION PERIOD FROM TO .",
        "(Exact name of Registrant as specified)",
    ]
    assert read_identity([(0, line) for line in lines]).registrant == "NIKE, Inc."


def test_ten_q_quarter_comes_from_the_spans_its_statements_cover() -> None:
    lines = [
        "FORM 10-Q",
        "For the quarterly period ended December 31, 2022",
        "AMCOR PLC",
        "(Exact name of registrant as specified in its charter)",
    ]
    later = [(2, "Condensed Consolidated Statements of Income for the six months ended")]
    identity = read_identity([(0, line) for line in lines] + later)
    assert (identity.form, identity.fiscal_quarter, identity.fiscal_year) == ("10-Q", 2, 2023)


def test_earnings_release_headline_and_ticker() -> None:
    lines = [
        "MGM RESORTS INTERNATIONAL REPORTS FOURTH QUARTER AND",
        "FULL YEAR 2022 FINANCIAL AND OPERATING RESULTS",
        "Las Vegas, Nevada, February 8, 2023 - MGM Resorts International (NYSE: MGM) today",
    ]
    identity = read_identity([(0, line) for line in lines])
    assert identity.form == "earnings release"
    assert identity.registrant == "MGM Resorts International"
    assert identity.tickers == ("MGM",)
    assert (identity.fiscal_year, identity.fiscal_quarter) == (2022, 4)
    assert identity.published == "2023-02-08"


def test_eight_k_reads_its_report_date_on_the_next_line() -> None:
    lines = [
        "FORM 8-K",
        "Date of report (Date of earliest event reported):",
        "August 23, 2023",
        "Johnson & Johnson",
        "(Exact name of registrant as specified in its charter)",
    ]
    identity = read_identity([(0, line) for line in lines])
    assert (identity.form, identity.period_end) == ("8-K", "2023-08-23")


def test_a_sentence_citing_a_form_is_not_the_cover() -> None:
    lines = [
        "PepsiCo Reports First-Quarter 2023 Results",
        "Form 10-Q) filed with the Securities and Exchange Commission (SEC) for more",
    ]
    assert read_identity([(0, lines[0]), (1, lines[1])]).form == "earnings release"


def test_no_filing_reads_empty_and_round_trips() -> None:
    identity = read_identity([(0, "A recipe for bread"), (0, "Mix flour and water.")])
    assert identity.registrant == "" and identity.form == ""
    assert FilingIdentity.from_dict(identity.as_dict()) == identity


def test_first_page_texts_emit_headings_once_before_content() -> None:
    parts = [
        (0, ["AMCOR PLC"], "(Exact name of registrant)"),
        (0, ["AMCOR PLC"], "Jersey"),
        (9, ["Late"], "ignored"),
    ]
    assert first_page_texts(parts) == [
        (0, "AMCOR PLC"),
        (0, "(Exact name of registrant)"),
        (0, "Jersey"),
    ]


@pytest.mark.parametrize(
    ("end", "quarter", "year"),
    [
        (date(2023, 6, 30), 0, 2023),  # June year end
        (date(2023, 1, 1), 0, 2022),  # 52/53-week year spilling into January
        (date(2024, 2, 3), 0, 2023),  # retail year ending early February
        (date(2022, 12, 31), 2, 2023),  # second quarter of a June year
        (date(2023, 6, 30), 2, 2023),  # second quarter of a calendar year
    ],
)
def test_fiscal_year_of_end(end: date, quarter: int, year: int) -> None:
    assert fiscal_year_of_end(end, quarter) == year


def test_dates_and_quarters() -> None:
    assert parse_date("FY 2023 ended Dec. 31 2022") == date(2022, 12, 31)
    assert parse_date("no date here 2023") is None
    assert fiscal_quarter_of_10q("nine months ended") == 3
    assert fiscal_quarter_of_10q("three months ended") == 1
