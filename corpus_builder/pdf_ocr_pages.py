"""Fill a PDF's text-less pages and its raster regions with OCR lines (corpus_builder.pdf_ocr).

OCR runs only where text is missing: on a page without a text layer (its OCR lines become
the page's lines, so they form paragraphs, headings and tables like any other text) and on
a raster region of a page with a text layer when almost no text-layer line lies inside it.
A page that no component would cover (no text even after OCR, or only a heading, as a
slide that opens a section) becomes a page-sized region, so it stays in the corpus.
"""

from __future__ import annotations

from dataclasses import replace

from corpus_builder.pdf_figures import INSIDE_MARGIN, line_box
from corpus_builder.pdf_ocr import OcrJob, OcrRunner
from corpus_builder.pdf_pages import PdfFile, PdfLine, PdfPage, PdfRegion
from state.corpus import BoxedLine, IngestReport

MIN_TEXT_LINES = 2
"""A raster region with fewer text-layer lines inside is read by OCR (a scanned chart)."""


def ocr_jobs(pdf: PdfFile) -> list[OcrJob]:
    """Return the pages and raster regions of a PDF that need OCR."""
    jobs = []
    for page in pdf.pages:
        if page.index in pdf.unreadable_pages:
            continue
        if not page.lines:
            jobs.append(OcrJob(str(pdf.path), page.index))
            continue
        for region in page.regions:
            if region.raster and _text_inside(page, region) < MIN_TEXT_LINES:
                jobs.append(OcrJob(str(pdf.path), page.index, region.box))
    return jobs


def _text_inside(page: PdfPage, region: PdfRegion) -> int:
    x1, y1, x2, y2 = region.box
    count = 0
    for line in page.lines:
        lx1, ly1, lx2, ly2 = line_box(line, page.height)
        cx, cy = (lx1 + lx2) / 2, (ly1 + ly2) / 2
        m = INSIDE_MARGIN
        count += x1 - m <= cx <= x2 + m and y1 - m <= cy <= y2 + m
    return count


def apply_ocr(pdf: PdfFile, runner: OcrRunner, report: IngestReport) -> None:
    """OCR what a PDF lacks and put the lines in place; failures are reported per page."""
    jobs = ocr_jobs(pdf)
    if not jobs:
        return
    for job, result in zip(jobs, runner.run(jobs), strict=True):
        page = pdf.pages[job.page]
        if result.error:
            what = "page" if job.crop is None else "a region of page"
            report.repair(
                str(pdf.path), f"OCR failed on {what} {job.page} ({result.error}); kept without it"
            )
            continue
        if job.crop is None:
            page.lines = [ocr_line(line, page) for line in result.lines]
        else:
            page.regions = [
                replace(r, ocr_lines=result.lines) if r.box == job.crop else r for r in page.regions
            ]


def ocr_line(line: BoxedLine, page: PdfPage) -> PdfLine:
    """Return an OCR line as a page line (pdfium's bottom-left coordinates)."""
    x1, y1, x2, y2 = line.box
    return PdfLine(
        text=line.text,
        page=page.index,
        top=page.height - y1,
        bottom=page.height - y2,
        left=x1,
        size=round(y2 - y1, 1),
        bold=False,
        right=x2,
    )


def page_regions(pdf: PdfFile, covered: set[int]) -> list[PdfRegion]:
    """Return every region of a PDF, plus a page-sized one for each page nothing covers.

    Args:
        pdf: The file, its pages' regions found.
        covered: The pages some text block has lines on.
    """
    regions = [region for page in pdf.pages for region in page.regions]
    for page in pdf.pages:
        bare = page.index not in covered and not page.regions
        if bare and page.index not in pdf.unreadable_pages and page.width > 0:
            box = (0.0, 0.0, round(page.width, 1), round(page.height, 1))
            regions.append(PdfRegion(page.index, box, True))
    return regions
