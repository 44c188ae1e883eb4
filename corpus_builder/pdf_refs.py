"""Cross-references inside a PDF: link annotations, "see Note 7" / "Item 8" and "Figure 3".

A section is not a node of the layered graph; a reference to it points at the section's
first component (the one that follows its heading). Link annotations point at the first
component that starts on their destination page (else the one running over it). "see
Figure 3", "as shown in Table 2" and "Exhibit 4" point at the region (or table) whose
caption carries that label (corpus_builder.pdf_figures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from corpus_builder.pdf_figures import label_key
from corpus_builder.pdf_furniture import MIN_REPEATS, REPEAT_SHARE
from corpus_builder.pdf_layout import Block
from corpus_builder.pdf_pages import PdfLine, PdfLink

_MENTION = re.compile(r"\b(Item|ITEM|Note|NOTE)s?\s+(\d{1,2}[A-Ca-c]?)\b")
_FIGURE_MENTION = re.compile(
    r"\b(Figure|FIGURE|Fig\.|Table|TABLE|Exhibit|EXHIBIT|Chart|Graph|Map|Diagram)s?\s+"
    r"(\d{1,3}[A-Za-z]?)\b"
)
LANDING_SLACK = 2.0
"""Points a destination may sit below the top of the line it targets (rounding in writers)."""
MAX_MENTIONS = 12
"""Mentions followed per component; an index page that names every note is about no one
section (link annotations are all kept: each was put there on purpose)."""


def section_starts(blocks: Sequence[Block]) -> dict[tuple[str, str], int]:
    """Map each section key ("note", "7") to the index of its first block (first heading wins)."""
    starts: dict[tuple[str, str], int] = {}
    for index, block in enumerate(blocks):
        for key in block.opens:
            starts.setdefault(key, index)
    return starts


def mention_targets(text: str, starts: dict[tuple[str, str], int], source: int) -> list[int]:
    """Return the blocks that the items and notes a text names begin."""
    targets = []
    for match in _MENTION.finditer(text):
        key = (match.group(1).lower(), match.group(2).lower())
        target = starts.get(key)
        if target is not None and target != source:
            targets.append(target)
    return targets


def labelled(blocks: Sequence[Block]) -> dict[tuple[str, str], int]:
    """Map each caption label ("figure", "3") to its block: a region first, else a table."""
    found: dict[tuple[str, str], int] = {}
    for index, block in enumerate(blocks):
        if block.label is not None:
            found.setdefault(block.label, index)
    for index, block in enumerate(blocks):
        key = label_key(block.lines[0].text) if block.kind == "table" else None
        if key is not None:
            found.setdefault(key, index)
    return found


def figure_targets(text: str, labels: dict[tuple[str, str], int], source: int) -> list[int]:
    """Return the blocks whose caption label a text names ("see Figure 3", "Table 2")."""
    targets = []
    for match in _FIGURE_MENTION.finditer(text):
        key = label_key(f"{match.group(1)} {match.group(2)}")
        target = labels.get(key) if key is not None else None
        if target is not None and target != source:
            targets.append(target)
    return targets


def link_targets(blocks: Sequence[Block], links: Sequence[PdfLink]) -> list[tuple[int, int]]:
    """Return (source block, target block) pairs for link annotations between pages."""
    lines_on_page: dict[int, list[tuple[PdfLine, int]]] = {}
    for index, block in enumerate(blocks):
        for line in block.lines:
            lines_on_page.setdefault(line.page, []).append((line, index))
    pairs = []
    for link in links:
        source = next(
            (
                index
                for line, index in lines_on_page.get(link.page, ())
                if line.bottom <= link.top + 1 and line.top >= link.bottom - 1
            ),
            None,
        )
        target = _landing(blocks, lines_on_page, link)
        if source is not None and target is not None and source != target:
            pairs.append((source, target))
    return pairs


def _landing(
    blocks: Sequence[Block], lines_on_page: dict[int, list[tuple[PdfLine, int]]], link: PdfLink
) -> int | None:
    """Return the block a link lands on: the first at or below its destination height."""
    on_page = lines_on_page.get(link.target_page, [])
    if link.target_top is not None:
        below = [i for line, i in on_page if line.top <= link.target_top + LANDING_SLACK]
        if below:
            return below[0]
    if on_page:
        return on_page[0][1]
    running = (i for i, b in enumerate(blocks) if b.pages[0] <= link.target_page <= b.pages[1])
    return next(running, None)


def content_links(links: Sequence[PdfLink], pages: int) -> list[PdfLink]:
    """Drop navigation links: a target reached from many pages ("Table of Contents" atop each)."""
    sources: dict[int, set[int]] = {}
    for link in links:
        sources.setdefault(link.target_page, set()).add(link.page)
    needed = max(MIN_REPEATS, REPEAT_SHARE * pages)
    return [link for link in links if len(sources[link.target_page]) < needed]


def references(blocks: Sequence[Block], links: Sequence[PdfLink], pages: int) -> list[list[int]]:
    """Return, per block, the blocks it refers to (links first, then mentions), deduplicated."""
    starts, labels = section_starts(blocks), labelled(blocks)
    found: list[list[int]] = [[] for _ in blocks]
    for source, target in link_targets(blocks, content_links(links, pages)):
        found[source].append(target)
    for index, block in enumerate(blocks):
        if block.kind == "paragraph":
            mentioned = dict.fromkeys(mention_targets(block.text, starts, index))
            mentioned.update(dict.fromkeys(figure_targets(block.text, labels, index)))
            found[index] += list(mentioned)[:MAX_MENTIONS]
    return [list(dict.fromkeys(targets)) for targets in found]
