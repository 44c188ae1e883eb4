"""Sections from a printed table of contents, for filings whose item headings are not found.

A contents page lists "Item 7. Management's Discussion ... 31": the printed page 31 is the
file's page 31 + offset, where the offset (cover pages, unnumbered front matter) is read
from the bare page numbers printed at the page edges. Each entry opens its section on the
line of that page that prints its title, else at the page's top.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from corpus_builder.pdf_furniture import EDGE_LINES
from corpus_builder.pdf_pages import PdfLine, PdfPage
from corpus_builder.pdf_sections import (
    ITEM,
    NOTE,
    PART,
    Heading,
    contents_pages,
    find_printed,
    heading_key,
)

_ENTRY = re.compile(r"^(?P<title>.*?\S)(?:\s*\.{2,})?\s+(?P<page>\d{1,3})$")
_BARE_NUMBER = re.compile(r"^[-–—]?\s*(\d{1,3})\s*[-–—]?$")
MIN_OFFSET_VOTES = 3
"""Pages that must agree on the printed-to-file page offset before entries are placed."""
FOUND_SHARE = 0.5
"""When detected headings already give this share of the contents' items, keep them alone."""


def contents_entries(lines: Sequence[PdfLine]) -> list[tuple[int, str, int]]:
    """Return (level, title, printed page) of the item and part entries of contents pages."""
    pages = contents_pages(lines)
    entries = []
    for line in lines:
        if line.page not in pages:
            continue
        match = _ENTRY.match(line.text)
        if match is None:
            continue
        title = match.group("title")
        level = (
            0 if PART.match(title) else 1 if ITEM.match(title) else 2 if NOTE.match(title) else -1
        )
        if level >= 0:
            entries.append((level, title, int(match.group("page"))))
    return entries


def page_offset(pages: Sequence[PdfPage]) -> int | None:
    """Return file page minus printed page, as most numbered pages agree, or None."""
    votes: Counter[int] = Counter()
    for page in pages:
        edges = [*page.lines[:EDGE_LINES], *page.lines[-EDGE_LINES:]]
        for line in edges:
            match = _BARE_NUMBER.match(line.text)
            if match:
                votes[page.index - int(match.group(1))] += 1
                break
    if not votes:
        return None
    offset, count = votes.most_common(1)[0]
    return offset if count >= MIN_OFFSET_VOTES else None


def contents_headings(
    lines: Sequence[PdfLine], pages: Sequence[PdfPage], found: dict[int, Heading]
) -> dict[int, Heading]:
    """Return headings for the contents entries the detected headings missed.

    Nothing is added when the detected headings already hold most of the contents' items
    or when the page offset cannot be read.
    """
    entries = contents_entries(lines)
    keys = {heading_key(title) for _, title, _ in entries} - {None}
    have = {heading.key for heading in found.values() if heading.key}
    offset = page_offset(pages) if keys else None
    if not keys or len(keys & have) >= FOUND_SHARE * len(keys) or offset is None:
        return {}
    first_line: dict[int, int] = {}
    for index, line in enumerate(lines):
        first_line.setdefault(line.page, index)
    added: dict[int, Heading] = {}
    for level, title, printed in entries:
        page = printed + offset
        key = heading_key(title)
        if page not in first_line or (key is not None and key in have):
            continue
        at = find_printed(lines, first_line[page], page, title)
        index = first_line[page] if at is None else at
        if index not in found and index not in added:
            added[index] = Heading(level, title, key, keeps_line=at is None)
    return added
