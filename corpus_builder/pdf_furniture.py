"""Remove page furniture: running headers and footers, repeated links back, page numbers.

A line is furniture when, digits aside, the same text sits among the first or last lines of
many pages, or when it is a bare page number ("12", "- 12 -", "Page 3 of 9", "F-7") at the
top or bottom of a page.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from corpus_builder.pdf_pages import PdfLine, PdfPage
from corpus_builder.pdf_tables import row_cells

EDGE_LINES = 3
"""Lines at each end of a page that may be furniture; deeper lines are always content."""
REPEAT_SHARE = 0.2
"""A line repeating at a page edge on this share of pages is a running header or footer;
lower catches headers of a long section only, but starts to eat repeated table labels."""
MIN_REPEATS = 3
"""...and on at least this many pages, so short files keep their lines."""
_DIGITS = re.compile(r"\d+")
_ROMAN = r"(?=[ivxlc]+\b)c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
PAGE_NUMBER = re.compile(
    rf"^(?:page\s+)?[-–—(\[]?\s*(?:[A-Z]-)?(?:\d{{1,4}}|{_ROMAN})\s*[-–—)\]]?"
    r"(?:\s+of\s+\d{1,4})?$",
    re.I,
)
"""A bare page number: "12", "- 12 -", "(iv)", "F-7", "Page 3 of 9"."""


def edge_key(text: str) -> str:
    """Return a line's text with numbers and case erased, so "Page 3" and "Page 4" match."""
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _edges(page: PdfPage) -> list[tuple[int, PdfLine]]:
    count = len(page.lines)
    positions = sorted({*range(min(EDGE_LINES, count)), *range(max(0, count - EDGE_LINES), count)})
    return [(position, page.lines[position]) for position in positions]


def _may_repeat(text: str) -> bool:
    """Tell whether a line can be a running header: not a table row of several numbers."""
    cells = row_cells(text)
    return cells is None or len(cells.values) <= 1


def running_keys(pages: list[PdfPage]) -> set[str]:
    """Return the edge keys of lines that repeat at a page edge on many pages.

    Digits are erased so "Page 3" matches "Page 4", but a row of several numbers at the foot
    of many pages ("Total $ 1,234 $ 1,100") is a table's last row, never furniture.
    """
    seen: Counter[str] = Counter()
    for page in pages:
        seen.update({edge_key(line.text) for _, line in _edges(page) if _may_repeat(line.text)})
    needed = max(MIN_REPEATS, REPEAT_SHARE * len(pages))
    return {key for key, count in seen.items() if count >= needed}


def strip_furniture(pages: list[PdfPage]) -> tuple[list[PdfLine], int]:
    """Return the content lines of all pages in reading order, and how many lines were removed.

    pdfium sometimes joins a running header to the first content line ("Table of Contents
    • different laws ..."); the header words are cut off and the rest is kept.
    """
    running = running_keys(pages)
    prefixes = sorted((k for k in running if "#" not in k), key=len, reverse=True)
    kept: list[PdfLine] = []
    removed = 0
    for page in pages:
        furniture: set[int] = set()
        trimmed: dict[int, PdfLine] = {}
        for position, line in _edges(page):
            key = edge_key(line.text)
            if key in running or PAGE_NUMBER.match(line.text):
                furniture.add(position)
            elif rest := _after_prefix(line, key, prefixes):
                trimmed[position] = rest
        removed += len(furniture)
        kept += [trimmed.get(n, line) for n, line in enumerate(page.lines) if n not in furniture]
    return kept, removed


def _after_prefix(line: PdfLine, key: str, prefixes: list[str]) -> PdfLine | None:
    for prefix in prefixes:
        if key.startswith(prefix + " "):
            words = line.text.split()[len(prefix.split()) :]
            return replace(line, text=" ".join(words)) if words else None
    return None
