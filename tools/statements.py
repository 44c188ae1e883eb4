"""Financial statements recognised from their structure, and which statement a metric lives on.

General accounting, no company's wording: a primary statement is known by its title
("Consolidated Statements of Operations", "Balance Sheets", "Statements of Cash Flows")
or, untitled, by its line items (a balance sheet lists total assets and total
liabilities; a cash-flow statement nets operating, investing and financing activities).
A metric's lines decide its statement: revenue, costs, income and earnings per share on the
income statement; inventories, receivables, payables, assets, liabilities and equity on
the balance sheet; capital expenditure, depreciation add-backs, dividends paid and
repurchases on the cash-flow statement. A note is a page under a "Note N" heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tools.metric_terms import metric_inputs

INCOME, BALANCE, CASH_FLOW = "income statement", "balance sheet", "cash flow statement"
STATEMENTS = (INCOME, BALANCE, CASH_FLOW)

_TITLES: dict[str, re.Pattern[str]] = {
    INCOME: re.compile(
        r"statements? of (?:consolidated )?(?:operations|income|earnings|comprehensive income)"
        r"|income statements?|profit (?:and|&) loss",
        re.I,
    ),
    BALANCE: re.compile(r"balance sheets?|statements? of financial (?:position|condition)", re.I),
    CASH_FLOW: re.compile(
        r"statements? of (?:consolidated )?cash flows?|cash flows? statements?", re.I
    ),
}
_LINE_ITEMS: dict[str, re.Pattern[str]] = {
    INCOME: re.compile(
        r"^(?:total )?(?:net )?(?:revenues?|sales)\b|^cost of (?:sales|revenues?|goods sold)"
        r"|^gross (?:profit|margin)|^operating income|^income (?:before|from operations)"
        r"|^net (?:income|earnings)(?: attributable)?|earnings per share|^(?:basic|diluted)\b"
        r"|^(?:selling|research|interest expense|provision for income taxes)",
        re.I,
    ),
    BALANCE: re.compile(
        r"^total (?:current )?assets|^total (?:current )?liabilities|^inventor(?:y|ies)"
        r"|receivables?\b|^accounts payable|^total (?:share|stock)holders'? equity"
        r"|^property,? plant|^goodwill|^retained earnings|^cash and cash equivalents$",
        re.I,
    ),
    CASH_FLOW: re.compile(
        r"(?:provided by|used (?:in|for)) (?:operating|investing|financing) activities"
        r"|^(?:purchases of|payments for|additions to) property|^capital expenditures?"
        r"|^depreciation and amortization|^dividends paid|^(?:repurchases?|purchases) of "
        r"(?:common|treasury) stock|^net (?:increase|decrease|change) in cash",
        re.I,
    ),
}
_REFERENCED = re.compile(
    r"\b(?:on|in|to|from|within|into|per|see)\s+(?:the\s+|our\s+)?(?:accompanying\s+)?"
    r"(?:condensed\s+)?(?:consolidated\s+)?$",
    re.I,
)
"""What stands before a statement's name that a title only refers to ("... on the
Consolidated Balance Sheets", "Reconciliation to the Statements of Cash Flows")."""
LINE_ITEM_MIN = 3
"""Rows of one statement's kind a table needs to count as that statement without a title."""
_NOTE = re.compile(r"^\s*(?:note|notes)\s+\d+\b", re.I)
_QUESTION_NAMES: dict[str, re.Pattern[str]] = {
    INCOME: re.compile(
        r"income statement|statement of (?:income|operations)|p&l|profit and loss", re.I
    ),
    BALANCE: re.compile(r"balance sheet|statement of financial position", re.I),
    CASH_FLOW: re.compile(r"cash ?flow statement|statement of cash flows?|cash flows?", re.I),
}


def statement_of_line(line: str) -> str:
    """Return the statement a line item (or a metric input) belongs to, '' when none."""
    text = line.strip()
    for statement in (CASH_FLOW, BALANCE, INCOME):  # cash-flow lines mention income words
        if _LINE_ITEMS[statement].search(text):
            return statement
    return ""


def page_statement(titles: Sequence[str], row_labels: Sequence[str]) -> str:
    """Return the primary statement a page prints, '' when it prints none.

    Args:
        titles: The page's section titles and table captions.
        row_labels: The first cell of each table row on the page.
    """
    return statement_by_title(titles) or statement_by_lines(row_labels)


def statement_by_lines(row_labels: Sequence[str]) -> str:
    """Return the statement most of a page's row labels belong to (at least LINE_ITEM_MIN)."""
    counts = {
        s: sum(1 for label in row_labels if _LINE_ITEMS[s].search(label.strip()))
        for s in STATEMENTS
    }
    best = max(STATEMENTS, key=lambda s: counts[s])
    return best if counts[best] >= LINE_ITEM_MIN else ""


def statement_by_title(titles: Sequence[str]) -> str:
    """Return the primary statement a page's titles name, '' when none does.

    A title that names a statement after "on the", "to the" and the like only refers to it
    (a note's table of amounts carried on the balance sheet), as does a note's heading.
    """
    for title in titles:
        if _NOTE.search(title):
            continue
        for statement, pattern in _TITLES.items():
            found = pattern.search(title)
            if found and not _REFERENCED.search(title[: found.start()]):
                return statement
    return ""


def is_note(titles: Sequence[str]) -> bool:
    """Tell whether a page sits under a "Note N" heading (the notes to the statements)."""
    return any(_NOTE.search(title) for title in titles)


def statements_asked(question: str) -> tuple[str, ...]:
    """Return the statements a question names or whose lines its metric is made of."""
    named = [s for s, pattern in _QUESTION_NAMES.items() if pattern.search(question)]
    lines = [statement_of_line(line) for line in metric_inputs(question)]
    return tuple(dict.fromkeys([*named, *(s for s in lines if s)]))
