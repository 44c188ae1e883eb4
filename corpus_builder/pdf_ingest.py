"""Turn PDF files into documents: one document per file (doc_id = file stem), layout components.

Pipeline per file: read pages and their regions (pdf_reader, pdf_regions) → OCR where text
is missing (pdf_ocr_pages, when Tesseract is installed) → drop running headers, footers and
page numbers (pdf_furniture) → sections from the outline when plausible, else detected
headings (pdf_sections) completed from the printed table of contents (pdf_contents) →
blocks (pdf_layout) with an image block per region (pdf_figures) → components with page
spans, boxes, section paths and references to other sections and figures (pdf_refs). A file
that cannot be read is reported and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from corpus_builder.filing_identity import pdf_filing
from corpus_builder.folder_files import listed_files
from corpus_builder.pdf_contents import contents_headings
from corpus_builder.pdf_figures import line_box, with_regions
from corpus_builder.pdf_furniture import strip_furniture
from corpus_builder.pdf_layout import Block, BlockWalker
from corpus_builder.pdf_ocr import OcrOptions, OcrRunner, ocr_runner
from corpus_builder.pdf_ocr_pages import apply_ocr, page_regions
from corpus_builder.pdf_pages import PdfFile, PdfLimits, PdfLine, PdfReadError
from corpus_builder.pdf_refs import references
from corpus_builder.pdf_sections import detect_headings, outline_headings, plausible_outline
from corpus_builder.pdf_title import document_title
from state.corpus import Box, Component, Document, IngestReport, Table
from state.ids import check_id, component_id

logger = logging.getLogger(__name__)

PDF_SUFFIX = ".pdf"


def pdf_files(corpus: Path) -> list[Path]:
    """Return the PDF files of a file or folder (hidden folders skipped), in path order."""
    if corpus.is_file():
        return [corpus] if corpus.suffix.lower() == PDF_SUFFIX else []
    return [path for path in listed_files(corpus, {PDF_SUFFIX}) if path.is_file()]


def read_pdfs(
    paths: Sequence[Path],
    report: IngestReport,
    limits: PdfLimits | None = None,
    ocr: OcrOptions | None = None,
) -> list[Document]:
    """Read each PDF into a document; unreadable files are reported and skipped.

    With `ocr` (and Tesseract installed), pages without a text layer and raster regions are
    read by OCR in worker processes; without it they are reported as text-less.
    """
    documents = []
    with ocr_runner(ocr) as runner:
        for path in paths:
            try:
                document = read_pdf_document(path, report, limits, runner)
            except PdfReadError as err:
                report.skip(str(path), err.problem)  # the report names the file once
                continue
            if document is None:
                report.skip(str(path), "no text layer on any page (scanned?) and no OCR")
                continue
            documents.append(document)
        if runner is not None:
            stats = runner.stats
            report.ocr = {
                "jobs": stats.jobs, "pages": stats.pages, "cached": stats.cached,
                "failed": stats.failed, "seconds": round(stats.seconds, 2),
            }  # fmt: skip
            logger.info("OCR: %s", report.ocr)
    logger.info("read %d of %d PDF files", len(documents), len(paths))
    return documents


def read_pdf_document(
    path: Path, report: IngestReport, limits: PdfLimits | None = None, ocr: OcrRunner | None = None
) -> Document | None:
    """Read one PDF into a document, or None when no page has text and OCR found none.

    Raises:
        PdfReadError: If the file cannot be read (encrypted, corrupt, over a limit).
        MissingDependencyError: If pypdfium2 (the `pdf` extra) is not installed.
    """
    from corpus_builder.pdf_reader import read_pdf  # pypdfium2 loads only when PDFs are read

    pdf = read_pdf(path, limits)
    _report_pages(pdf, report, ocr is not None)
    if ocr is not None:
        apply_ocr(pdf, ocr, report)
    lines, _ = strip_furniture(pdf.pages)
    if not lines:
        return None
    every_line = [line for page in pdf.pages for line in page.lines]  # page numbers in charts
    heights = {page.index: page.height for page in pdf.pages}
    blocks = _blocks(pdf, lines)
    covered = {line.page for block in blocks for line in block.lines}
    blocks = with_regions(blocks, page_regions(pdf, covered), every_line, heights)
    doc_id = check_id(path.stem, "doc_id")
    title, facts = document_title(lines, pdf.title, path.stem)
    return Document(
        doc_id, title, "", _components(doc_id, blocks, pdf), source=str(path), facts=facts,
        page_count=len(pdf.pages), textless_pages=tuple(pdf.textless_pages),
        filing=pdf_filing(pdf, title).as_dict(),
    )  # fmt: skip


def _report_pages(pdf: PdfFile, report: IngestReport, ocr: bool) -> None:
    """Report damaged pages, pages without a text layer (when no OCR) and page problems."""
    path = str(pdf.path)
    if pdf.unreadable_pages:
        report.repair(path, f"{_pages(pdf.unreadable_pages)} cannot be loaded (damaged)")
    textless = [p for p in pdf.textless_pages if p not in pdf.unreadable_pages]
    if textless and not ocr and len(pdf.textless_pages) < len(pdf.pages):
        report.repair(
            path, f"{_pages(textless)} without a text layer; their content is not indexed (no OCR)"
        )
    for page in pdf.pages:
        for problem in page.problems:
            report.repair(path, problem)


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
    figure_pages = {page.index for page in pdf.pages if page.images and not page.regions}
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
                box=block.region.box if block.region is not None else _box(block, pdf),
                lines=block.inside,
            )
        )
    return tuple(components)


def _box(block: Block, pdf: PdfFile) -> Box | None:
    """Return the box of a block's lines on its first page (top-left origin), inside the page."""
    sheet = pdf.pages[block.lines[0].page]
    boxes = [line_box(line, sheet.height) for line in block.lines if line.page == sheet.index]
    if not boxes:
        return None
    right, bottom = sheet.width or float("inf"), sheet.height
    return (
        max(0.0, min(b[0] for b in boxes)),
        max(0.0, min(b[1] for b in boxes)),
        min(right, max(b[2] for b in boxes)),
        min(bottom, max(b[3] for b in boxes)),
    )
