"""A PDF as pages of text lines with their position, size and weight, links and figure boxes.

`corpus_builder.pdf_reader` reads them with pypdfium2 (the `pdf` extra); everything after
reading works on these values.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from state.corpus import BoxedLine
from tools.errors import CorpusFormatError

logger = logging.getLogger(__name__)

CAPTION_LINE = re.compile(r"^(?:Figure|Fig\.|Chart|Exhibit|Graph)\s+\d+[A-Za-z]?\b")
"""Lines that caption a figure; pages with one are searched for image objects."""
SAME_BASELINE = 0.25
"""Lines whose bottoms differ by less than this share of the font size are one printed line."""


class PdfReadError(CorpusFormatError):
    """A PDF that cannot be read: encrypted, corrupt, truncated or over a limit.

    The message is `path: problem`; a report that already names the file records `problem`.
    """

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


MIB = 1024 * 1024


@dataclass(frozen=True)
class PdfLimits:
    """Inputs larger than these are skipped; they trade coverage for bounded build time."""

    max_bytes: int = 300 * MIB
    """A 500-page 10-K with exhibits is ~5 MB; 300 MB is a scanned book, not a filing."""
    max_pages: int = 3000
    """Six times a long annual report with exhibits (about 500 pages)."""


@dataclass(frozen=True)
class PdfLine:
    """One line of text on a page; coordinates in PDF points, y growing upwards."""

    text: str
    page: int
    top: float
    bottom: float
    left: float
    size: float
    """Height of the first character's font box: a font size proxy comparable within a file."""
    bold: bool
    right: float = 0.0
    """Right edge of the line's last character (0 when unknown)."""


def lines_on_page(lines: list[PdfLine], width: float, height: float) -> tuple[list[PdfLine], int]:
    """Return the lines that show on a page of this size, and how many lie wholly outside it.

    Text placed off the page is in the file but never printed (a leftover, or hidden text
    planted for a reader); a line cut by the page's edge shows, so it stays.
    """
    shown = [
        line
        for line in lines
        if max(line.right, line.left) > 0 and line.left < width and line.top > 0
        and line.bottom < height
    ]  # fmt: skip
    return shown, len(lines) - len(shown)


@dataclass(frozen=True)
class PdfLink:
    """A link annotation on a page that jumps to another page of the same file."""

    page: int
    top: float
    bottom: float
    target_page: int
    target_top: float | None = None
    """Height on the target page the link jumps to, when the destination gives one."""


@dataclass(frozen=True)
class PdfRegion:
    """A figure, chart or picture found on a page, its box in points (top-left origin)."""

    page: int
    box: tuple[float, float, float, float]
    """(x1, y1, x2, y2), y growing downwards from the top of the page (as MMDocIR)."""
    raster: bool
    """True when the region is (mostly) an embedded image: its text needs OCR."""
    ocr_lines: tuple[BoxedLine, ...] = ()
    """Lines OCR read inside the region (raster regions on pages with a text layer)."""


@dataclass
class PdfPage:
    """The lines of one page, its links to other pages and its figure boxes."""

    index: int
    height: float
    lines: list[PdfLine] = field(default_factory=list)
    links: list[PdfLink] = field(default_factory=list)
    images: list[tuple[float, float]] = field(default_factory=list)
    """(top, bottom) of each image large enough to be a figure, on pages with a caption."""
    width: float = 0.0
    regions: list[PdfRegion] = field(default_factory=list)
    """Figures, charts and pictures of the page (corpus_builder.pdf_regions)."""
    problems: list[str] = field(default_factory=list)
    """What could not be read on the page (a corrupt image, a region outside the page)."""


@dataclass
class PdfFile:
    """What a PDF holds: metadata title, outline entries (level, title, page) and pages."""

    path: Path
    title: str
    outline: list[tuple[int, str, int]]
    pages: list[PdfPage]
    textless_pages: list[int] = field(default_factory=list)
    """Pages without any text (scanned, blank, or unreadable)."""
    unreadable_pages: list[int] = field(default_factory=list)
    """Pages pdfium could not load (a damaged page of an otherwise readable file)."""


def same_printed_line(previous: PdfLine, line: PdfLine) -> bool:
    """Tell whether pdfium broke one printed line in two (justified text set word by word)."""
    tolerance = SAME_BASELINE * max(min(previous.size, line.size), 1.0)
    return abs(previous.bottom - line.bottom) <= tolerance and line.left > previous.left
