"""Turn a page's regions (figures, charts, pictures) into image blocks among the text blocks.

A region block holds its caption ("Figure 3: ...", "Table 2", "Exhibit 4": the nearest such
line just above or below the box), the text lines inside its box (a vector chart's axis
labels, legend and data labels; a raster region's OCR lines) and its label, which in-text
references resolve to (corpus_builder.pdf_refs). It is placed in reading order by page
and height, under the section of the block before it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from corpus_builder.pdf_layout import Block
from corpus_builder.pdf_pages import PdfLine, PdfRegion
from state.corpus import Box, BoxedLine

CAPTION = re.compile(
    r"^(Figure|Fig\.|Table|Exhibit|Chart|Graph|Map|Diagram|Plate)\s*(\d{1,3}[A-Za-z]?)\b",
    re.IGNORECASE,
)
"""A caption line and its label; "Fig." is the same label as "Figure"."""
CAPTION_GAP = 40.0
"""Points between a box and its caption line (above or below); farther lines are text."""
INSIDE_MARGIN = 4.0
"""Points a line's centre may sit outside a box and still be inside (axis labels)."""
MAX_REGION_CHARS = 2000
"""Characters of a region's text kept as its content (a dense table holds more)."""


def label_key(text: str) -> tuple[str, str] | None:
    """Return the (kind, number) label of a caption line, e.g. ("figure", "3"), else None."""
    match = CAPTION.match(text.strip())
    if match is None:
        return None
    kind = match.group(1).lower().rstrip(".")
    return ("figure" if kind == "fig" else kind), match.group(2).lower()


def line_box(line: PdfLine, height: float) -> Box:
    """Return a text line's box in points with the top-left origin."""
    right = max(line.right, line.left)
    box = (line.left, height - line.top, right, height - line.bottom)
    return tuple(round(v, 1) for v in box)  # type: ignore[return-value]


def region_block(region: PdfRegion, lines: Sequence[PdfLine], height: float) -> Block:
    """Return the image block of a region from the lines of its page."""
    x1, y1, x2, y2 = region.box
    inside, caption = [], None
    best = CAPTION_GAP
    for line in lines:
        lx1, ly1, lx2, ly2 = line_box(line, height)
        cx, cy = (lx1 + lx2) / 2, (ly1 + ly2) / 2
        margin = INSIDE_MARGIN
        if x1 - margin <= cx <= x2 + margin and y1 - margin <= cy <= y2 + margin:
            inside.append(line)
            continue
        gap = min(abs(ly1 - y2), abs(y1 - ly2))
        if gap <= best and lx1 < x2 and lx2 > x1 and CAPTION.match(line.text):
            caption, best = line, gap
    boxed = [BoxedLine(line.text, line_box(line, height)) for line in inside]
    boxed += list(region.ocr_lines)
    words = [caption.text] if caption is not None else []
    words += [line.text for line in boxed]
    text = " ".join(words)[:MAX_REGION_CHARS] or f"Picture on page {region.page + 1}"
    own = [caption] if caption is not None else []
    own += inside or [_stand_in(region, height)]
    return Block(
        "image",
        (),
        own,
        text=text,
        region=region,
        label=label_key(caption.text) if caption is not None else None,
        inside=tuple(boxed),
    )


def _stand_in(region: PdfRegion, height: float) -> PdfLine:
    """Return an empty line over a region without text, so the block has a page and a place."""
    x1, y1, x2, y2 = region.box
    return PdfLine("", region.page, height - y1, height - y2, x1, 0.0, False, right=x2)


def with_regions(
    blocks: Sequence[Block],
    regions: Sequence[PdfRegion],
    lines: Sequence[PdfLine],
    heights: Mapping[int, float],
) -> list[Block]:
    """Return the blocks with an image block per region inserted in reading order."""
    by_page: dict[int, list[PdfLine]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    merged = list(blocks)
    for region in sorted(regions, key=lambda r: (r.page, r.box[1])):
        height = heights.get(region.page, 0.0)
        block = region_block(region, by_page.get(region.page, []), height)
        where = _position(merged, (region.page, region.box[1]), heights)
        block.section = merged[where - 1].section if where else ()
        merged.insert(where, block)
    return merged


def _position(blocks: Sequence[Block], key: tuple[int, float], heights: Mapping[int, float]) -> int:
    """Return the index before the first block that starts below the key (page, top)."""
    for index, block in enumerate(blocks):
        first = block.lines[0]
        start = (first.page, heights.get(first.page, 0.0) - first.top)
        if start > key:
            return index
    return len(blocks)
