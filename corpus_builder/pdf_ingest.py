"""Turn PDF files into documents: one document per file (doc_id = file stem), layout components.

Pipeline per file: read pages (pdf_pages) → drop running headers, footers and page numbers
(pdf_furniture) → sections from the outline when plausible, else detected headings
(pdf_sections) completed from the printed table of contents (pdf_contents) → blocks
(pdf_layout) → components with page spans, section paths and references to other sections
(pdf_refs). A file that cannot be read is reported and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from corpus_builder.filing_identity import pdf_filing
from corpus_builder.pdf_contents import contents_headings
from corpus_builder.pdf_furniture import strip_furniture
from corpus_builder.pdf_layout import Block, BlockWalker
from corpus_builder.pdf_pages import PdfFile, PdfLimits, PdfLine, PdfReadError
from corpus_builder.pdf_refs import references
from corpus_builder.pdf_sections import detect_headings, outline_headings, plausible_outline
from corpus_builder.pdf_title import document_title
from state.corpus import Component, Document, IngestReport, Table
from state.ids import check_id, component_id

logger = logging.getLogger(__name__)

PDF_SUFFIX = ".pdf"


def pdf_files(corpus: Path) -> list[Path]:
    """Return the PDF files of a file or folder (hidden folders skipped), in path order."""
    if corpus.is_file():
        return [corpus] if corpus.suffix.lower() == PDF_SUFFIX else []
    return sorted(
        path
        for path in corpus.rglob("*")
        if path.suffix.lower() == PDF_SUFFIX
        and path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(corpus).parts)
    )


def read_pdfs(
    paths: Sequence[Path], report: IngestReport, limits: PdfLimits | None = None
) -> list[Document]:
    """Read each PDF into a document; unreadable files are reported and skipped."""
    documents = []
    for path in paths:
        try:
            document = read_pdf_document(path, report, limits)
        except PdfReadError as err:
            report.skip(str(path), err.problem)  # the report names the file once
            continue
        if document is None:
            report.skip(str(path), "no text layer on any page (scanned?); no OCR is configured")
            continue
        documents.append(document)
    logger.info("read %d of %d PDF files", len(documents), len(paths))
    return documents


def read_pdf_document(
    path: Path, report: IngestReport, limits: PdfLimits | None = None
) -> Document | None:
    """Read one PDF into a document, or None when no page has text.

    Raises:
        PdfReadError: If the file cannot be read (encrypted, corrupt, over a limit).
        MissingDependencyError: If pypdfium2 (the `pdf` extra) is not installed.
    """
    from corpus_builder.pdf_reader import read_pdf  # pypdfium2 loads only when PDFs are read

    pdf = read_pdf(path, limits)
    if pdf.unreadable_pages:
        report.repair(str(path), f"{_pages(pdf.unreadable_pages)} cannot be loaded (damaged)")
    textless = [p for p in pdf.textless_pages if p not in pdf.unreadable_pages]
    if textless and len(pdf.textless_pages) < len(pdf.pages):
        report.repair(
            str(path),
            f"{_pages(textless)} without a text layer; their content is not indexed (no OCR)",
        )
    lines, _ = strip_furniture(pdf.pages)
    if not lines:
        return None
    blocks = _blocks(pdf, lines)
    doc_id = check_id(path.stem, "doc_id")
    title, facts = document_title(lines, pdf.title, path.stem)
    components = _components(doc_id, blocks, pdf)
    return Document(
        doc_id, title, "", components, source=str(path), facts=facts,
        page_count=len(pdf.pages), filing=pdf_filing(pdf, title).as_dict(),
    )  # fmt: skip


def _pages(pages: list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:10])
    more = ", ..." if len(pages) > 10 else ""
    return f"{len(pages)} page(s) (zero-indexed: {shown}{more})"


def sections_from_outline(pdf: PdfFile) -> bool:
    """Tell whether a file's sections come from its outline (else from detected headings)."""
    return plausible_outline(pdf.outline)


def _blocks(pdf: PdfFile, lines: list[PdfLine]) -> list[Block]:
    if sections_from_outline(pdf):
        headings, merged = outline_headings(lines, pdf.outline), set[int]()
    else:
        headings, merged = detect_headings(lines)
        headings.update(contents_headings(lines, pdf.pages, headings))
    figure_pages = {page.index for page in pdf.pages if page.images}
    return BlockWalker(headings, merged, figure_pages).walk(lines)


def _components(doc_id: str, blocks: list[Block], pdf: PdfFile) -> tuple[Component, ...]:
    links = [link for page in pdf.pages for link in page.links]
    counts: dict[str, int] = {}
    ids = []
    for block in blocks:
        n = counts.get(block.kind, 0)
        counts[block.kind] = n + 1
        ids.append(component_id(doc_id, block.kind, n))
    targets = references(blocks, links, len(pdf.pages))
    components = []
    for order, (block, cid) in enumerate(zip(blocks, ids, strict=True)):
        table: Table | None = None
        text = block.text
        if block.table is not None:
            caption, table = block.table.finish()
            text = caption or (block.section[-1] if block.section else "")
        components.append(
            Component(
                cid,
                doc_id,
                block.kind,
                order,
                text=text,
                table=table,
                pages=block.pages,
                section=block.section,
                page_starts=tuple(block.page_starts),
                refers_to=tuple(ids[t] for t in targets[order]),
            )
        )
    return tuple(components)
