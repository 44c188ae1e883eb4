"""Statements recognised by title or line items; a metric's statement from its lines."""

from __future__ import annotations

import pytest

from tools.statements import (
    BALANCE,
    CASH_FLOW,
    INCOME,
    is_note,
    page_statement,
    statement_by_title,
    statements_asked,
)


@pytest.mark.parametrize(
    ("titles", "labels", "statement"),
    [
        (["CONSOLIDATED STATEMENTS OF OPERATIONS"], [], INCOME),
        (["Consolidated Balance Sheets"], [], BALANCE),
        (["Consolidated Statement of Financial Position"], [], BALANCE),
        (["Consolidated Statements of Cash Flows"], [], CASH_FLOW),
        ([], ["Net sales", "Cost of sales", "Gross profit", "Operating income"], INCOME),
        ([], ["Inventories", "Accounts receivable, net", "Total current assets"], BALANCE),
        (
            [],
            [
                "Net cash provided by operating activities",
                "Purchases of property and equipment",
                "Dividends paid",
            ],
            CASH_FLOW,
        ),
        ([], ["Net sales", "Anvils"], ""),
        (["Note 7 - Balance sheet details"], [], ""),
        (
            ["Financial Instruments Not Measured at Fair Value on the Consolidated Balance Sheets"],
            [],
            "",
        ),
        (["Reconciliation to the Consolidated Statements of Cash Flows"], [], ""),
        (["The Acme Company and Subsidiaries Consolidated Statements of Operations"], [], INCOME),
    ],
)
def test_page_statement(titles: list[str], labels: list[str], statement: str) -> None:
    assert page_statement(titles, labels) == statement


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("What is the FY2021 inventory turnover ratio?", {INCOME, BALANCE}),
        ("What is the FY2021 capital expenditure amount?", {CASH_FLOW}),
        ("Based on the balance sheet, what are total current assets?", {BALANCE}),
        ("What industry does the company operate in?", set()),
    ],
)
def test_statements_asked(question: str, wanted: set[str]) -> None:
    assert set(statements_asked(question)) == wanted


def test_notes() -> None:
    assert is_note(["Notes to Financial Statements", "Note 12 - Debt"])
    assert not is_note(["Item 7. Management's Discussion"])


def test_a_title_names_the_statement_a_page_prints_not_one_it_refers_to() -> None:
    assert statement_by_title(["Item 8.", "Consolidated Balance Sheets"]) == BALANCE
    assert statement_by_title(["Amounts recognised in the balance sheets"]) == ""
    # line items alone make a statement page, but not a titled one
    labels = ["Net sales", "Cost of sales", "Gross profit", "Operating income"]
    assert page_statement(["Results of Operations"], labels) == INCOME
    assert statement_by_title(["Results of Operations"]) == ""
