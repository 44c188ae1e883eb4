"""Find the section headings of a PDF: from its outline when plausible, else from its lines.

Detected headings, from strongest to weakest: "PART II" (level 0), "Item 7." (1), "Note 12 —"
(2), a line in a font clearly larger than the body (2), a short bold line (3). Lines of a
printed table of contents ("Item 7. Management's Discussion ... 25") end with a page
number and are not headings. Items and notes get a key ("item", "7") that in-text
references ("see Note 7", "Item 8") resolve to.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from corpus_builder.pdf_pages import PdfLine
from corpus_builder.pdf_tables import YEAR, row_cells

PART = re.compile(r"^(?:PART|Part)\s+(IV|I{1,3})\b\.?\s*[—–:-]?\s*(.*)$")
ITEM = re.compile(r"^(?:ITEM|Item)\s+(\d{1,2}[A-Ca-c]?)\b(?:\s*[.:—–-]\s*|\s+(?=[A-Z])|\s*$)(.*)$")
NOTE = re.compile(r"^(?:NOTE|Note)\s+(\d{1,2})\b\s*(?:[.:—–-]\s*|\s+(?=[A-Z])|$)(.*)$")
NUMBERED_NOTE = re.compile(r"^(\d{1,2})\.\s+[A-Z][A-Za-z]")
"""A bold "5. Commitments and Contingencies": how many filings number their notes."""
_PRINTED_PAGE = re.compile(r"(?:\.{2,}|\s)\s*\d{1,3}$")
"""A contents entry ends in its page number, after dot leaders or a space."""
MAX_HEADING_CHARS = 120
"""Longer lines are running text even in a large or bold font."""
LARGER_FONT = 1.15
"""A line whose font is this much taller than the body font is a heading (a size change of
one point at 9-12 pt is ~10%, body text rarely varies that much)."""
PAGE_BODY_CHARS = 800
"""A page with this much text sets its own body font size; sparser pages use the file's."""
MIN_CONTENTS_ENTRIES = 4
"""A page with this many item or note lines ending in a page number is a table of contents."""
COLUMN_HEAD_WORDS = 3
"""Bold lines this short stacked over each other are a table's column heads ("Amortized" /
"Cost"), not headings; longer stacked lines ("CONSOLIDATED BALANCE SHEETS") stay titles."""
MIN_OUTLINE_ENTRIES = 3
"""An outline with fewer entries (one bookmark per merged file) says nothing of sections."""


@dataclass(frozen=True)
class Heading:
    """A section heading: its level (0 outermost), title and reference key."""

    level: int
    title: str
    key: tuple[str, str] | None = None
    keeps_line: bool = False
    """The heading sits above this line, which stays content (outline entry not found on page)."""


def heading_key(title: str) -> tuple[str, str] | None:
    """Return ("item", "7a") or ("note", "12") for an item or note title, else None."""
    for kind, pattern in (("item", ITEM), ("note", NOTE)):
        match = pattern.match(title)
        if match:
            return kind, match.group(1).lower()
    return None


def body_size(lines: Sequence[PdfLine]) -> float:
    """Return the font size most of the text is set in."""
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def classify(line: PdfLine, body: float) -> Heading | None:
    """Return the heading a line is, or None for content."""
    text = line.text
    if len(text) > MAX_HEADING_CHARS or not any(ch.isalpha() for ch in text):
        return None
    for level, pattern in ((0, PART), (1, ITEM), (2, NOTE)):
        if pattern.match(text):
            if _PRINTED_PAGE.search(text) and len(text.split()) > 2:
                return None  # an entry of a printed table of contents
            return Heading(level, text, heading_key(text))
    if text.endswith((",", ";", ":")) or text[0].islower():
        return None
    cells = row_cells(text)
    sentence = text.endswith(".") and len(text.split()) > 5
    larger = bool(body) and line.size >= body * LARGER_FONT
    # A large title may end in a year ("Annual Report 2023"); a bold "2023 2022" heads a table.
    if larger and not sentence and (cells is None or all(YEAR.match(v) for v in cells.values)):
        return Heading(2, text)
    if not line.bold or sentence or cells is not None or text.startswith("("):
        return None
    numbered = NUMBERED_NOTE.match(text)
    if numbered:  # "5. Commitments and Contingencies", as notes are printed in bold
        return Heading(2, text, ("note", numbered.group(1)))
    return Heading(3, text) if len(text.split()) <= 14 else None


def contents_pages(lines: Sequence[PdfLine]) -> set[int]:
    """Return the pages of a printed table of contents: several item lines ending in a page.

    Their item lines are entries even when an entry wraps and its first line has no number.
    """
    entries: Counter[int] = Counter()
    for line in lines:
        text = line.text
        if _PRINTED_PAGE.search(text) and any(p.match(text) for p in (PART, ITEM, NOTE)):
            entries[line.page] += 1
    return {page for page, count in entries.items() if count >= MIN_CONTENTS_ENTRIES}


def detect_headings(lines: Sequence[PdfLine]) -> tuple[dict[int, Heading], set[int]]:
    """Return the headings found among lines (by index) and the lines merged into one.

    A bare "Item 7." or "Note 12" line takes the next line as its title when that is short.
    """
    overall = body_size(lines)
    by_page: dict[int, list[PdfLine]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    # A page's own body font where it has enough text: exhibits and releases change fonts.
    bodies = {
        page: body_size(group) if sum(len(x.text) for x in group) >= PAGE_BODY_CHARS else overall
        for page, group in by_page.items()
    }
    contents = contents_pages(lines)
    headings: dict[int, Heading] = {}
    merged: set[int] = set()
    for index, line in enumerate(lines):
        if index in merged:
            continue
        heading = classify(line, bodies[line.page])
        if heading is None or (heading.level <= 2 and line.page in contents):
            continue
        follower = lines[index + 1] if index + 1 < len(lines) else None
        if not heading.key and heading.level >= 2 and _runs_on(line, follower):
            continue  # a bold run-in term opening a paragraph, not a heading
        if heading.level == 3 and _stacked(line, follower):
            continue  # bold lines over bold lines or rows: a table's column heads
        if heading.key and _bare(heading.title) and follower and _titles(follower):
            heading = Heading(heading.level, f"{heading.title} {follower.text}", heading.key)
            merged.add(index + 1)
        headings[index] = heading
    return headings, merged


def _runs_on(line: PdfLine, follower: PdfLine | None) -> bool:
    """Tell whether the next line goes on with this one's sentence."""
    if follower is None or follower.page != line.page:
        return False
    return follower.text[0].islower() or line.text.endswith(("-", "\xad"))


def _stacked(line: PdfLine, follower: PdfLine | None) -> bool:
    """Tell whether a short bold line sits over a row or another short bold line."""
    if follower is None or follower.page != line.page:
        return False
    if row_cells(follower.text) is not None:
        return True
    short = len(line.text.split()) <= COLUMN_HEAD_WORDS
    return short and follower.bold and len(follower.text.split()) <= COLUMN_HEAD_WORDS


def _bare(title: str) -> bool:
    match = ITEM.match(title) or NOTE.match(title)
    return match is not None and not match.group(2).strip()


def _titles(line: PdfLine) -> bool:
    return len(line.text) <= MAX_HEADING_CHARS and row_cells(line.text) is None


def plausible_outline(outline: Sequence[tuple[int, str, int]]) -> bool:
    """Tell whether an outline describes sections (several entries over several pages)."""
    return len(outline) >= MIN_OUTLINE_ENTRIES and len({page for *_, page in outline}) >= 2


def outline_headings(
    lines: Sequence[PdfLine], outline: Sequence[tuple[int, str, int]]
) -> dict[int, Heading]:
    """Place each outline entry on the line of its page that prints its title.

    An entry whose title is not printed on its page opens its section at the page's
    first line, which stays content.
    """
    top = min(level for level, *_ in outline)
    first_line: dict[int, int] = {}
    for index, line in enumerate(lines):
        first_line.setdefault(line.page, index)
    headings: dict[int, Heading] = {}
    for level, title, page in outline:
        start = _next_page_start(first_line, page)
        if start is None:
            continue
        found = find_printed(lines, start, page, title)
        index = start if found is None else found
        if index in headings:
            continue
        headings[index] = Heading(level - top, title, heading_key(title), keeps_line=found is None)
    return headings


def _next_page_start(first_line: dict[int, int], page: int) -> int | None:
    later = [start for p, start in first_line.items() if p >= page]
    return min(later) if later else None


def find_printed(lines: Sequence[PdfLine], start: int, page: int, title: str) -> int | None:
    """Return the index of the line of a page (lines from `start`) printing a title."""
    wanted = _norm(title)[:40]
    index = start
    while index < len(lines) and lines[index].page == page:
        text = _norm(lines[index].text)
        if len(text) >= 4 and (text.startswith(wanted) or wanted.startswith(text)):
            return index
        index += 1
    return None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())
