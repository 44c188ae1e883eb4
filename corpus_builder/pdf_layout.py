"""Walk a PDF's content lines in reading order and cut them into blocks under their sections.

A block becomes one component: a paragraph (lines re-joined, hyphens removed), a table
(runs of numeric rows, header lines above, across page breaks) or a figure caption. Each
block keeps its lines, so later steps know its pages and where link annotations sit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from corpus_builder.pdf_pages import CAPTION_LINE, PdfLine, PdfRegion
from corpus_builder.pdf_sections import Heading
from corpus_builder.pdf_tables import (
    MAX_HEADER_CHARS,
    MAX_HEADER_LINES,
    RowCells,
    TableDraft,
    is_row_label,
    row_cells,
)
from state.corpus import BoxedLine
from state.ids import ComponentKind

PARAGRAPH_GAP = 0.6
"""A vertical gap above a line taller than this share of its font size starts a paragraph."""
MAX_PARAGRAPH_CHARS = 1500
"""A paragraph this long ends at the next line that closes a sentence: bounded components
keep one embedding about one thing."""
MIN_PARAGRAPH_CHARS = 40
"""A shorter paragraph ("period.", "(3)", "None.") joins the paragraph before it in the same
section: alone it is too little text to embed or to rank."""
MIN_TABLE_ROWS = 2
"""Fewer rows with numbers are running text that happens to end in a number."""
MAX_LABEL_RUN = 3
"""Label-only lines a table may hold in a row before the table is over."""
_SENTENCE_END = (".", "!", "?", ":", ";", "”", '"')
_HYPHENS = ("-", "\xad", "\x02")


@dataclass
class Block:
    """Lines that make one component, with the section they sit in."""

    kind: ComponentKind
    section: tuple[str, ...]
    lines: list[PdfLine]
    text: str = ""
    page_starts: list[int] = field(default_factory=list)
    table: TableDraft | None = None
    opens: list[tuple[str, str]] = field(default_factory=list)
    """Keys of the sections ("item", "7") this block is the first component of."""
    region: PdfRegion | None = None
    """The figure, chart or picture an image block stands for (corpus_builder.pdf_figures)."""
    label: tuple[str, str] | None = None
    """The caption's label ("figure", "3") that in-text references name."""
    inside: tuple[BoxedLine, ...] = ()
    """A region's text lines (text layer and OCR) with their boxes."""

    @property
    def pages(self) -> tuple[int, int]:
        """Return the first and last page of the block's lines."""
        return self.lines[0].page, self.lines[-1].page


class BlockWalker:
    """Cut lines into blocks; `walk` returns them in reading order."""

    def __init__(
        self, headings: Mapping[int, Heading], merged: set[int], figure_pages: set[int]
    ) -> None:
        self.headings = headings
        self.merged = merged
        self.figure_pages = figure_pages
        self.blocks: list[Block] = []
        self.stack: list[Heading] = []
        self.opening: list[tuple[str, str]] = []
        self.paragraph: list[PdfLine] = []
        self.table: TableDraft | None = None
        self.table_lines: list[PdfLine] = []
        self.labels: list[PdfLine] = []

    def walk(self, lines: Sequence[PdfLine]) -> list[Block]:
        """Return the blocks of the lines, headings turned into section paths."""
        for index, line in enumerate(lines):
            if index in self.merged:
                continue
            heading = self.headings.get(index)
            if heading is not None and not (self.table and heading.level >= 3):
                self._close_table()
                self._close_paragraph()
                self._enter(heading)
                if not heading.keeps_line:
                    continue
            self._line(line)
        self._close_table()
        self._close_paragraph()
        return self.blocks

    @property
    def section(self) -> tuple[str, ...]:
        """Return the titles of the open sections, outermost first."""
        return tuple(heading.title for heading in self.stack)

    def _enter(self, heading: Heading) -> None:
        while self.stack and self.stack[-1].level >= heading.level:
            self.stack.pop()
        self.stack.append(heading)
        if heading.key:
            self.opening.append(heading.key)

    def _line(self, line: PdfLine) -> None:
        cells = row_cells(line.text)
        if cells is not None:
            self._row(line, cells)
            return
        if self.table is not None:
            if is_row_label(line.text) and len(self.labels) < MAX_LABEL_RUN:
                self.labels.append(line)
                return
            self._close_table()
        if CAPTION_LINE.match(line.text) and line.page in self.figure_pages:
            self._close_paragraph()
            self._emit(Block("image", self.section, [line], text=line.text))
            return
        if self.paragraph and _starts_paragraph(self.paragraph, line):
            self._close_paragraph()
        self.paragraph.append(line)

    def _row(self, line: PdfLine, cells: RowCells) -> None:
        if self.table is None:
            header = _header_lines(self.paragraph)
            self.paragraph = self.paragraph[: len(self.paragraph) - len(header)]
            self._close_paragraph()
            self.table = TableDraft(header_lines=[h.text for h in header])
            self.table_lines = list(header)
        for label in self.labels:
            self.table.add(RowCells(label.text, ()), label.page)
            self.table_lines.append(label)
        self.labels = []
        self.table.add(cells, line.page)
        self.table_lines.append(line)

    def _close_table(self) -> None:
        table, lines, labels = self.table, self.table_lines, self.labels
        self.table, self.table_lines, self.labels = None, [], []
        if table is None:
            return
        if table.value_rows >= MIN_TABLE_ROWS:
            block = Block("table", self.section, lines, table=table)
            self._emit(block)
            self.paragraph = list(labels)
            return
        self.paragraph = [*lines, *labels]  # too few rows: it was running text

    def _close_paragraph(self) -> None:
        lines, self.paragraph = self.paragraph, []
        if not lines:
            return
        previous = self.blocks[-1] if self.blocks else None
        text, starts = join_lines(lines)
        short = len(text) < MIN_PARAGRAPH_CHARS and not self.opening
        if short and _continues(previous, lines, self.section):
            assert previous is not None
            previous.lines += lines
            previous.text, previous.page_starts = join_lines(previous.lines)
            return
        self._emit(Block("paragraph", self.section, lines, text=text, page_starts=starts))

    def _emit(self, block: Block) -> None:
        block.opens, self.opening = self.opening, []
        self.blocks.append(block)


def _continues(previous: Block | None, lines: Sequence[PdfLine], section: tuple[str, ...]) -> bool:
    """Tell whether a fragment can join the paragraph before it (same section, next page)."""
    return (
        previous is not None
        and previous.kind == "paragraph"
        and previous.section == section
        and lines[0].page - previous.lines[-1].page <= 1
    )


def _header_lines(paragraph: Sequence[PdfLine]) -> list[PdfLine]:
    """Return the short lines ending the paragraph that head the table starting below them."""
    header: list[PdfLine] = []
    for line in reversed(paragraph[-MAX_HEADER_LINES:]):
        if len(line.text) > MAX_HEADER_CHARS or line.text.endswith("."):
            break
        if header and header[0].page != line.page:
            break
        header.insert(0, line)
    return header


def _starts_paragraph(paragraph: Sequence[PdfLine], line: PdfLine) -> bool:
    previous = paragraph[-1]
    ends_sentence = previous.text.endswith(_SENTENCE_END)
    if line.page != previous.page:
        return ends_sentence or not line.text[0].islower()
    if previous.bottom - line.top > PARAGRAPH_GAP * max(line.size, 1.0):
        return True
    if line.top > previous.top + max(line.size, 1.0):  # jumped up: a new column or box
        return True
    if abs(line.size - previous.size) > 0.15 * max(previous.size, 1.0):
        return True
    chars = sum(len(x.text) + 1 for x in paragraph)
    return chars > MAX_PARAGRAPH_CHARS and ends_sentence


def join_lines(lines: Sequence[PdfLine]) -> tuple[str, list[int]]:
    """Join lines into one text, removing end-of-line hyphens; return it and page start offsets."""
    text = ""
    starts: list[int] = []
    page = lines[0].page
    for line in lines:
        if line.page != page:
            page = line.page
            starts.append(len(text) + (1 if text else 0))
        broken = text.endswith(_HYPHENS) and len(text) > 1 and text[-2].isalpha()
        if broken and line.text[0].islower():
            text = text[:-1] + line.text  # a word broken at the line end
        else:
            text = f"{text} {line.text}" if text else line.text
    return text, starts
