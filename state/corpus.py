"""The corpus data model: documents (layer 0), components (layer 1), subcomponents (layer 2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from state.ids import ComponentKind, SubcomponentKind

Layer = Literal["document", "component", "subcomponent"]
LAYERS: tuple[Layer, ...] = get_args(Layer)
PageSpan = tuple[int, int]
"""Zero-indexed first and last page of a PDF component (page 0 is the first page)."""
Box = tuple[float, float, float, float]
"""(x1, y1, x2, y2) on a PDF page in points, origin at the top-left corner (as MMDocIR)."""


@dataclass(frozen=True)
class BoxedLine:
    """A line of text inside a PDF region (text layer or OCR) and its box on the page."""

    text: str
    box: Box


@dataclass(frozen=True)
class Table:
    """A table's cells as text; `cell_links[r][c]` lists the doc ids a cell links to."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    cell_links: tuple[tuple[tuple[str, ...], ...], ...] = ()
    row_pages: tuple[int, ...] = ()
    """Zero-indexed PDF page of each row (empty for tables without pages)."""

    def row_links(self, r: int) -> tuple[str, ...]:
        """Return the distinct doc ids linked from the cells of row r, in cell order."""
        if r >= len(self.cell_links):
            return ()
        seen: dict[str, None] = {}
        for cell in self.cell_links[r]:
            for doc in cell:
                seen.setdefault(doc, None)
        return tuple(seen)


@dataclass(frozen=True)
class Component:
    """A paragraph, table or image of a document, with its raw content and outgoing links.

    `text` is the paragraph text, the table's caption or the image's caption/alt text.
    `links` are the documents this component hyperlinks to (the link signal L).
    `sentence_links[i]` optionally lists the documents linked from the i-th sentence.
    """

    component_id: str
    doc_id: str
    kind: ComponentKind
    order: int
    text: str = ""
    table: Table | None = None
    image_path: str | None = None
    links: tuple[str, ...] = ()
    anchors: tuple[tuple[str, str], ...] = ()
    """(anchor text, doc id) pairs of hyperlinks in a paragraph, to locate them in sentences."""
    pages: PageSpan | None = None
    """Zero-indexed first and last PDF page (page 0 is the first); None outside PDFs."""
    section: tuple[str, ...] = ()
    """Titles of the sections holding the component, outermost first (PDFs)."""
    page_starts: tuple[int, ...] = ()
    """Offsets in `text` where pages pages[0]+1, pages[0]+2, ... begin (a paragraph over pages)."""
    refers_to: tuple[str, ...] = ()
    """Component ids this one refers to inside its document (a PDF link or "see Note 7")."""
    box: Box | None = None
    """Box of a PDF component on its first page (points, top-left origin); None outside PDFs."""
    lines: tuple[BoxedLine, ...] = ()
    """Text lines inside a PDF region (an image component), each with its box."""

    def page_at(self, offset: int) -> int | None:
        """Return the page holding the character at `offset` of `text`, None without pages."""
        if self.pages is None:
            return None
        return self.pages[0] + sum(1 for start in self.page_starts if start <= offset)


@dataclass(frozen=True)
class Subcomponent:
    """A sentence, table row segment (header + row) or image region of a component."""

    subcomponent_id: str
    component_id: str
    doc_id: str
    kind: SubcomponentKind
    order: int
    text: str
    links: tuple[str, ...] = ()
    box: tuple[int, int, int, int] | None = None
    pages: PageSpan | None = None
    """Zero-indexed first and last PDF page of the subcomponent; None outside PDFs."""


@dataclass(frozen=True)
class Document:
    """A page of the corpus and its ordered components."""

    doc_id: str
    title: str
    url: str = ""
    components: tuple[Component, ...] = ()
    source: str = ""
    """Where the document came from (file and line), for messages."""
    facts: tuple[str, ...] = ()
    """Short facts the summary opens with (a PDF's filer, form and period)."""
    page_count: int = 0
    """Page count of a PDF document; 0 for other documents."""
    filing: Mapping[str, Any] = field(default_factory=dict)
    """A filing's identity read from its first pages (tools.filing_identity.FilingIdentity
    as a dict: registrant, form, fiscal period, where each was read); empty otherwise."""
    textless_pages: tuple[int, ...] = ()
    """Zero-indexed pages of a PDF without a text layer (before any OCR)."""


@dataclass
class SkippedItem:
    """One input the builder could not use, with where it was and why."""

    where: str
    problem: str


@dataclass
class IngestReport:
    """What ingestion read, skipped and could not resolve."""

    documents: int = 0
    components: int = 0
    skipped: list[SkippedItem] = field(default_factory=list)
    repaired: list[SkippedItem] = field(default_factory=list)
    """Inputs kept in a degraded form (e.g. HTML decoded from a legacy charset)."""
    unresolved_links: int = 0
    unresolved_examples: list[str] = field(default_factory=list)
    ocr: dict[str, float] = field(default_factory=dict)
    """What OCR did: jobs, pages, cached, failed, seconds (empty when OCR did not run)."""

    def skip(self, where: str, problem: str) -> None:
        """Record an input that was skipped."""
        self.skipped.append(SkippedItem(where, problem))

    def repair(self, where: str, problem: str) -> None:
        """Record an input that was kept after a repair."""
        self.repaired.append(SkippedItem(where, problem))

    def unresolved(self, where: str, target: str) -> None:
        """Count a link whose target is not a document of the corpus."""
        self.unresolved_links += 1
        if len(self.unresolved_examples) < 20:
            self.unresolved_examples.append(f"{where} -> {target}")
