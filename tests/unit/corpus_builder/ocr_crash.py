"""An OCR job that kills its worker process, as pdfium can on a corrupt embedded image.

A module of its own (not a test): spawned workers import it by name to run the job.
"""

from __future__ import annotations

import os

from corpus_builder.pdf_ocr import OcrJob, OcrResult


def crash_on_page_one(job: OcrJob, *_: object) -> OcrResult:
    """Kill the worker on page 1; read nothing (and fail nothing) elsewhere."""
    if job.page == 1:
        os._exit(70)
    return OcrResult(())
