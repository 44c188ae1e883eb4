"""Read a bundle's `corpus.jsonl` (one document per line) into documents, skipping bad records."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from corpus_builder.images import ImageGuard
from corpus_builder.jsonl_records import first_error, jsonl_records
from state.corpus import Box, BoxedLine, Component, Document, IngestReport, Table
from state.ids import check_id
from tools.errors import CorpusFormatError

logger = logging.getLogger(__name__)

COMPONENT_TYPES = ("paragraph", "table", "image")


class TableRecord(BaseModel):
    """A table as the bundle stores it."""

    header: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list)
    row_pages: list[int] | None = None
    """Optional zero-indexed page of each row (PDF tables)."""


class LineRecord(BaseModel):
    """A text line inside a PDF region, with its box in points (top-left origin)."""

    text: str
    box: tuple[float, float, float, float]


class ComponentRecord(BaseModel):
    """One component of a bundle document; unknown extra fields are kept and ignored."""

    model_config = ConfigDict(extra="allow")

    component_id: str
    type: str
    text: str | None = None
    caption: str | None = None
    table: TableRecord | None = None
    image_path: str | None = None
    links: list[str] = Field(default_factory=list)
    cell_links: list[list[list[str]]] | None = None
    pages: tuple[int, int] | None = None
    """Optional zero-indexed [first, last] page (PDF components)."""
    section: list[str] = Field(default_factory=list)
    """Optional section path, outermost title first (PDF components)."""
    page_starts: list[int] = Field(default_factory=list)
    """Optional offsets in text where each following page begins."""
    refers_to: list[str] = Field(default_factory=list)
    """Optional component ids of the same document this one refers to."""
    box: tuple[float, float, float, float] | None = None
    """Optional box on the first page, [x1, y1, x2, y2] in points, top-left origin."""
    lines: list[LineRecord] = Field(default_factory=list)
    """Optional text lines of a PDF region, each with its box."""


class DocumentRecord(BaseModel):
    """One line of `corpus.jsonl`; components are validated one by one."""

    model_config = ConfigDict(extra="allow")

    doc_id: str
    title: str = ""
    url: str = ""
    components: list[dict[str, Any]] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    page_count: int = 0
    source_file: str = ""
    """Optional path, inside the bundle folder, of the file the document was read from (a
    PDF): the index records it, so `fif serve` shows its pages whatever built the index."""
    filing: dict[str, Any] = Field(default_factory=dict)
    textless_pages: list[int] = Field(default_factory=list)
    """Optional zero-indexed pages of a PDF without a text layer (before any OCR)."""


def read_bundle(corpus_file: Path, report: IngestReport, guard: ImageGuard) -> Iterator[Document]:
    """Yield the documents of a bundle file; bad lines and components are reported and skipped."""
    if not corpus_file.is_file():
        raise CorpusFormatError(f"{corpus_file}: no such file; a bundle needs corpus.jsonl")
    for where, record in jsonl_records(corpus_file, DocumentRecord, report, _not_a_document):
        document = _to_document(record, where, report, guard)
        if document is not None:
            yield document


def _not_a_document(problem: str) -> str:
    return f"not a document record: {problem}"


def _to_document(
    record: DocumentRecord, where: str, report: IngestReport, guard: ImageGuard
) -> Document | None:
    try:
        doc_id = check_id(record.doc_id, "doc_id")
    except ValueError as err:
        report.skip(where, str(err))
        return None
    components: list[Component] = []
    for position, payload in enumerate(record.components):
        component = _to_component(
            payload, doc_id, len(components), f"{where} component {position}", report, guard
        )
        if component is not None:
            components.append(component)
    if not components:
        report.skip(f"{where} doc {doc_id!r}", "empty document: no usable components")
        return None
    title = record.title.strip() or doc_id.replace("_", " ")
    facts = tuple(record.facts)
    source = where
    if record.source_file:
        source = _source_file(record.source_file, guard.root, where, report)
    return Document(
        doc_id, title, record.url, tuple(components), source, facts, record.page_count,
        record.filing, tuple(record.textless_pages),
    )  # fmt: skip


def _source_file(relative: str, bundle: Path, where: str, report: IngestReport) -> str:
    """Return the absolute path of a document's source file, or `where` if it is unusable.

    The file must sit inside the bundle folder (the folder of corpus.jsonl); a missing one
    is reported and the document is kept without it.
    """
    root = bundle.resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        problem = "is outside the bundle folder" if not path.is_relative_to(root) else "is missing"
        report.repair(where, f"source_file {relative!r} {problem}; the document has no page images")
        return where
    return str(path)


def _to_component(
    payload: dict[str, Any],
    doc_id: str,
    order: int,
    where: str,
    report: IngestReport,
    guard: ImageGuard,
) -> Component | None:
    try:
        record = ComponentRecord.model_validate(payload)
        cid = check_id(record.component_id, "component_id")
    except (ValidationError, ValueError) as err:
        problem = first_error(err) if isinstance(err, ValidationError) else str(err)
        report.skip(where, f"bad component: {problem}")
        return None
    where = f"{where} ({cid})"
    if record.type not in COMPONENT_TYPES:
        report.skip(
            where,
            f"unknown component type {record.type!r}; expected one of {', '.join(COMPONENT_TYPES)}",
        )
        return None
    links = tuple(dict.fromkeys(link for link in record.links if link))
    found: Component | None
    if record.type == "paragraph":
        text = (record.text or "").strip()
        if not text:
            report.skip(where, "empty paragraph")
            return None
        found = Component(cid, doc_id, "paragraph", order, text=text, links=links)
    elif record.type == "table":
        bare = Component(cid, doc_id, "table", order, links=links)
        found = _to_table(record, bare, where, report)
    else:
        bare = Component(cid, doc_id, "image", order, links=links)
        found = _to_image(record, bare, where, report, guard)
    return None if found is None else _with_layout(found, record, where, report)


def _with_layout(
    component: Component, record: ComponentRecord, where: str, report: IngestReport
) -> Component:
    """Attach the optional PDF layout fields (pages, section, references) of a record."""
    pages = record.pages
    if pages is not None and not 0 <= pages[0] <= pages[1]:
        report.repair(where, f"page span {list(pages)} is not [first, last] >= 0; pages dropped")
        pages = None
    return replace(
        component,
        pages=pages,
        section=tuple(record.section),
        page_starts=tuple(record.page_starts) if pages is not None else (),
        refers_to=tuple(record.refers_to),
        box=_box(record.box, where, report),
        lines=tuple(
            BoxedLine(line.text, line.box)
            for line in record.lines
            if _box(line.box, where, report) is not None
        ),
    )


def _box(box: Box | None, where: str, report: IngestReport) -> Box | None:
    """Return a box if it is [x1, y1, x2, y2] with x1 <= x2 and y1 <= y2, else report it."""
    if box is None or (box[0] <= box[2] and box[1] <= box[3]):
        return box
    report.repair(where, f"box {list(box)} is not [x1, y1, x2, y2]; box dropped")
    return None


def _to_table(
    record: ComponentRecord, bare: Component, where: str, report: IngestReport
) -> Component | None:
    """Return the table component of a record, `bare` (its id, kind, order, links) filled in."""
    if record.table is None or not record.table.rows:
        report.skip(where, "table without rows")
        return None
    header = tuple(cell.strip() for cell in record.table.header)
    rows = tuple(tuple(cell.strip() for cell in row) for row in record.table.rows)
    cell_links: tuple[tuple[tuple[str, ...], ...], ...] = ()
    links = bare.links
    if record.cell_links is not None:
        if len(record.cell_links) != len(rows):
            report.skip(
                where,
                f"cell_links has {len(record.cell_links)} rows, table has "
                f"{len(rows)}; cell links ignored",
            )
        else:
            cell_links = tuple(tuple(tuple(cell) for cell in row) for row in record.cell_links)
            links = tuple(
                dict.fromkeys([*links, *(d for row in cell_links for c in row for d in c)])
            )
    caption = (record.caption or record.text or "").strip()
    table = Table(header, rows, cell_links, _row_pages(record.table.row_pages, len(rows)))
    return replace(bare, text=caption, table=table, links=links)


def _row_pages(row_pages: list[int] | None, rows: int) -> tuple[int, ...]:
    return tuple(row_pages) if row_pages is not None and len(row_pages) == rows else ()


def _to_image(
    record: ComponentRecord, bare: Component, where: str, report: IngestReport, guard: ImageGuard
) -> Component | None:
    """Return the image component of a record, `bare` (its id, kind, order, links) filled in."""
    caption = (record.caption or record.text or "").strip()
    image_path = guard.check(record.image_path, where, report) if record.image_path else None
    if image_path is None and not caption:
        report.skip(where, "image with neither a usable file nor a caption")
        return None
    return replace(bare, text=caption, image_path=image_path)
