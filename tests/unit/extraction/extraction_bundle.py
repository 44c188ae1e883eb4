"""A tiny two-filing corpus with page spans and section paths, as `fif convert` writes PDFs."""

from __future__ import annotations

from typing import Any

INCOME = ["Item 8. Financial Statements", "Consolidated Statements of Income"]
MDNA = ["Item 7. Management's Discussion and Analysis", "Results of Operations"]
RISKS = ["Item 1A. Risk Factors"]


def paragraph(cid: str, text: str, pages: list[int], section: list[str]) -> dict[str, Any]:
    return {
        "component_id": cid,
        "type": "paragraph",
        "text": text,
        "links": [],
        "pages": pages,
        "section": section,
    }


def table(
    cid: str, caption: str, rows: list[list[str]], pages: list[int], section: list[str]
) -> dict[str, Any]:
    return {
        "component_id": cid,
        "type": "table",
        "caption": caption,
        "table": {"header": ["", "2022", "2021"], "rows": rows},
        "pages": pages,
        "section": section,
    }


ACME = {
    "doc_id": "acme_2022_10k",
    "title": "ACME Corp Form 10-K 2022",
    "components": [
        paragraph(
            "acme_2022_10k::p0", "ACME Corp makes anvils and rockets.", [0, 0], ["Item 1. Business"]
        ),
        paragraph(
            "acme_2022_10k::p1",
            "Supply chain disruption and steel prices may hurt our margins.",
            [5, 6],
            RISKS,
        ),
        paragraph(
            "acme_2022_10k::p2",
            "Net sales grew 8% to $5,298 million in fiscal 2022 as anvil demand stayed strong.",
            [10, 10],
            MDNA,
        ),
        table(
            "acme_2022_10k::t0",
            "($ in millions)",
            [["Net sales", "$5,298", "$4,900"], ["Operating income", "$1,060", "$950"]],
            [20, 20],
            INCOME,
        ),
        paragraph("acme_2022_10k::p3", "See Note 2 for revenue recognition.", [20, 20], INCOME),
        paragraph(
            "acme_2022_10k::p4",
            "Steel prices rose again in the second half of the year.",
            [7, 7],
            RISKS,
        ),
    ],
}
GLOBEX = {
    "doc_id": "globex_2022_10k",
    "title": "Globex Form 10-K 2022",
    "components": [
        paragraph(
            "globex_2022_10k::p0",
            "Globex sells software to hospitals.",
            [0, 0],
            ["Item 1. Business"],
        ),
        table(
            "globex_2022_10k::t0",
            "($ in millions)",
            [["Net sales", "$800", "$700"], ["Operating income", "$90", "$70"]],
            [12, 12],
            INCOME,
        ),
    ],
}
DOCUMENTS = [ACME, GLOBEX]
MARGIN_QUESTION = "What was ACME's operating margin in fiscal 2022?"
