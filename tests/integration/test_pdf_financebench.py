"""Two real FinanceBench filings: a 10-K with "Item N." headings and no outline, and an
earnings release with an outline. Structure, page spans and gold-page coverage are checked
against the questions' own evidence."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from corpus_builder.pdf_ingest import read_pdf_document
from state.corpus import Component, Document, IngestReport

pytestmark = pytest.mark.integration

DATA = Path(
    os.environ.get("FIF_FINANCEBENCH_DIR")
    or Path(os.environ.get("FIF_DATA_DIR", "data")) / "financebench-dev"
)
TEN_K = "NETFLIX_2017_10K"
RELEASE = "AMCOR_2023Q4_EARNINGS"
MIN_EVIDENCE_WORDS = 0.7
"""Share of an evidence passage's words the components covering its page must hold; the rest
are page furniture and headings upstream kept in the passage and we read as section titles."""


@pytest.fixture(scope="module")
def documents() -> dict[str, Document]:
    if not (DATA / "pdfs").is_dir():
        pytest.skip(f"FinanceBench dev set not at {DATA}; set FIF_DATA_DIR or FIF_FINANCEBENCH_DIR")
    found = {}
    for name in (TEN_K, RELEASE):
        document = read_pdf_document(DATA / "pdfs" / f"{name}.pdf", IngestReport())
        assert document is not None
        found[name] = document
    return found


def questions(doc: str) -> list[dict[str, Any]]:
    with (DATA / "financebench_open_source.jsonl").open(encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [q for q in records if q["doc_name"] == doc]


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def component_words(document: Document, page: int) -> set[str]:
    found: set[str] = set()
    for c in document.components:
        if c.pages is not None and c.pages[0] <= page <= c.pages[1]:
            found |= words(c.text) | words(" ".join(c.section))
            if c.table is not None:
                found |= words(" ".join(" ".join(row) for row in c.table.rows))
    return found


def test_ten_k_sections_come_from_item_headings(documents: dict[str, Document]) -> None:
    document = documents[TEN_K]
    assert document.title == "Netflix, Inc. Form 10-K December 31, 2017"
    tops = {c.section[1] for c in document.components if len(c.section) > 1}
    for item in ("Item 1A. Risk Factors", "Item 7A.", "Item 8. Financial Statements"):
        assert any(title.startswith(item) for title in tops), item
    # The "Table of Contents" link repeated atop every page is gone.
    assert not [c.component_id for c in document.components if "Table of Contents" in c.text]


def test_ten_k_balance_sheet_is_a_table_with_rows(documents: dict[str, Document]) -> None:
    tables = [c for c in documents[TEN_K].components if c.table is not None]
    assert len(tables) >= 20
    row = ("Total assets", "$19,012,742", "$13,586,610")
    [sheet] = [t for t in tables if t.table is not None and row in t.table.rows]
    assert sheet.table is not None and sheet.table.header[1:] == ("2017", "2016")
    assert sheet.pages == (44, 44)
    assert sheet.section[-1] == "CONSOLIDATED BALANCE SHEETS"


def test_release_sections_come_from_its_outline(documents: dict[str, Document]) -> None:
    sections = {c.section[0] for c in documents[RELEASE].components if c.section}
    assert {"Highlights", "Key Financials"} <= sections


@pytest.mark.parametrize("name", [TEN_K, RELEASE])
def test_page_spans_are_sane(documents: dict[str, Document], name: str) -> None:
    document = documents[name]
    spans = [c.pages for c in document.components]
    assert all(s is not None and 0 <= s[0] <= s[1] < document.page_count for s in spans)
    starts = [s[0] for s in spans if s is not None]
    assert starts == sorted(starts)
    assert all(s[1] - s[0] <= 2 for s in spans if s is not None)  # no component runs away
    covered = {p for s in spans if s for p in range(s[0], s[1] + 1)}
    assert set(range(1, document.page_count)) <= covered


@pytest.mark.parametrize("name", [TEN_K, RELEASE])
def test_gold_pages_are_covered_by_components_holding_the_evidence(
    documents: dict[str, Document], name: str
) -> None:
    document = documents[name]
    checked = 0
    for record in questions(name):
        for evidence in record["evidence"]:
            page = int(evidence["evidence_page_num"])
            wanted = words(evidence["evidence_text"])
            share = len(wanted & component_words(document, page)) / len(wanted)
            assert share >= MIN_EVIDENCE_WORDS, (record["financebench_id"], page, share)
            checked += 1
    assert checked


def names(component: Component) -> set[str]:
    """Return the section title prefixes a component's text names ("Item 7", "5.")."""
    text = component.text
    if component.table is not None:
        text += " " + " ".join(" ".join(row) for row in component.table.rows)
    found = {f"Item {m}" for m in re.findall(r"Item (\d{1,2}[A-C]?)\b", text)}
    return found | {f"{m}." for m in re.findall(r"Note (\d{1,2})\b", text)}


def test_ten_k_cross_references_point_at_sections(documents: dict[str, Document]) -> None:
    document = documents[TEN_K]
    comps = {c.component_id: c for c in document.components}
    mentioning = [c for c in document.components if names(c) and c.refers_to]
    assert len(mentioning) >= 10
    for source in mentioning:
        sections = [title for t in source.refers_to for title in comps[t].section]
        assert any(title.startswith(tuple(names(source))) for title in sections), source.text[:80]
    notes = [comps[t] for c in document.components if "Note 5" in c.text for t in c.refers_to]
    assert any(title.startswith("5. Commitments") for t in notes for title in t.section)
    # The printed table of contents links every item to its page.
    on_contents = [comps[t] for c in document.components if c.pages == (1, 1) for t in c.refers_to]
    items = {t.section[1].split(".")[0] for t in on_contents if len(t.section) > 1}
    assert len(items) >= 15
