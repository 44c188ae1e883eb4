"""A PDF document's title and summary facts: filer, form and period from its first pages.

SEC filings print them on the cover ("FORM 10-K", "For the fiscal year ended December 31,
2022", the line above "(Exact name of registrant as specified in its charter)"); other
documents fall back on the metadata title, then on the largest line of the first page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpus_builder.pdf_pages import PdfLine
from tools.filing_identity import PERIOD_ENDED, REGISTRANT_CAPTION

COVER_PAGES = 2
"""Pages searched for the cover facts; the cover is the first page, sometimes the second."""
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K|S-1|DEF 14A)\b", re.I)
_REPORT_DATE = re.compile(
    r"Date of Report[^:]*:\s*(?P<date>[A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", re.I
)
_MACHINE_TITLE = re.compile(r"^[\d\s_-]+$|^microsoft word|\.(?:docx?|pdf|indd)$", re.I)
"""Metadata titles that are accession numbers or file names, not titles."""


def cover_facts(lines: Sequence[PdfLine]) -> tuple[str, str, str]:
    """Return (filer, form, period) read from the cover; each may be ''."""
    cover = [line for line in lines if line.page < COVER_PAGES]
    text = " ".join(line.text for line in cover)
    form = _FORM.search(text)
    period = PERIOD_ENDED.search(text) or _REPORT_DATE.search(text)
    filer = ""
    for index, line in enumerate(cover):
        if REGISTRANT_CAPTION.search(line.text) and index > 0:
            filer = _after_rule(cover[index - 1].text)
            break
    return filer, form.group(1).upper() if form else "", period.group("date") if period else ""


def _after_rule(text: str) -> str:
    """Drop a leading rule of underscores that pdfium joins to the next line."""
    return re.sub(r"^[_\s]+", "", text).strip()


def document_title(
    lines: Sequence[PdfLine], metadata_title: str, stem: str
) -> tuple[str, tuple[str, ...]]:
    """Return a document's title and its facts (filer, form, period lines)."""
    filer, form, period = cover_facts(lines)
    facts = tuple(
        fact
        for fact in (
            f"Filer: {filer}" if filer else "",
            f"Form: {form}" if form else "",
            f"Period: {period}" if period else "",
        )
        if fact
    )
    if filer and form:
        return " ".join(x for x in (filer, "Form", form, period) if x), facts
    if metadata_title and not _MACHINE_TITLE.search(metadata_title):
        return metadata_title, facts
    first = [line for line in lines if line.page == 0 and len(line.text) <= 150]
    if first:
        return max(first, key=lambda line: line.size).text, facts
    return stem.replace("_", " "), facts
