"""Reading a corpus's PDF files on Ray workers (`fif build --ray`): a task per file, with OCR.

Each task reads its PDF as `read_pdfs` would (OCR on one process: the task holds one CPU)
and returns the document with its own ingest report; the build process merges them in
path order, so documents, skips and repairs come out as an in-process read lists them.
`read_corpus` takes it as its PDF reader; bundles, HTML pages (their links resolve across
pages) and image folders are read in the build process: reading them is a small share of
a build next to embedding.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from corpus_builder.pdf_ingest import read_pdfs
from corpus_builder.pdf_ocr import OcrOptions
from corpus_builder.pdf_pages import PdfLimits
from state.corpus import Document, IngestReport
from tools.ray_cluster import import_ray

logger = logging.getLogger(__name__)

OCR_COUNTS = ("jobs", "pages", "cached", "failed", "seconds")
UNRESOLVED_EXAMPLES = 20
"""Examples an ingest report keeps (IngestReport.unresolved)."""


def read_pdf_file(
    path: Path, limits: PdfLimits | None, ocr: OcrOptions | None
) -> tuple[list[Document], IngestReport]:
    """Read one PDF on a worker: its document (none if skipped) and what the read reported."""
    report = IngestReport()
    one_process = replace(ocr, workers=1) if ocr is not None else None
    return read_pdfs([path], report, limits, one_process), report


def ray_read_pdfs(
    paths: Sequence[Path], report: IngestReport, limits: PdfLimits | None, ocr: OcrOptions | None
) -> list[Document]:
    """Read PDF files as `read_pdfs` does, one Ray task per file, merged in path order."""
    ray = import_ray()
    task = ray.remote(num_cpus=1)(read_pdf_file)
    pending = [task.remote(path.resolve(), limits, ocr) for path in paths]
    documents: list[Document] = []
    for read, part in ray.get(pending):
        documents += read
        merge_report(report, part)
    logger.info("read %d of %d PDF files on Ray", len(documents), len(paths))
    return documents


def merge_report(report: IngestReport, part: IngestReport) -> None:
    """Add one file's report to the corpus's: problems in order, OCR counts summed."""
    report.skipped += part.skipped
    report.repaired += part.repaired
    report.unresolved_links += part.unresolved_links
    room = max(0, UNRESOLVED_EXAMPLES - len(report.unresolved_examples))
    report.unresolved_examples += part.unresolved_examples[:room]
    if part.ocr:
        for key in OCR_COUNTS:
            report.ocr[key] = round(report.ocr.get(key, 0) + part.ocr.get(key, 0), 2)
