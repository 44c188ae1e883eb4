"""Embedded images a build keeps as regions but does not OCR: undecodable ones, huge ones.

pypdfium2 reads an image object's declared size and, from the image's header, its bits per
pixel without decoding the pixels; zero bits per pixel means pdfium could not read the
header (a corrupt or truncated JPEG, a broken stream). A huge image (a declared
60,000 × 60,000 scan, a decompression bomb) takes seconds to decode in every render. Either
keeps its region (its box and caption come from the page, not the pixels), is not sent to
OCR, and is named in the build's report.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

MAX_IMAGE_PIXELS = 100_000_000
"""Declared pixels of an image above which it is not OCR'd (Pillow's bomb limit is ~89 M)."""


def image_problem(image: Any) -> str | None:
    """Return why an image object of a page should not be OCR'd, or None when it can be.

    Args:
        image: A pypdfium2 `PdfImage` listed by `PdfPage.get_objects` (it knows its page).
    """
    import pypdfium2 as pdfium  # here: the reader names the pdf extra when it is missing

    try:
        width, height = image.get_px_size()
        bits = image.get_metadata().bits_per_pixel
    except pdfium.PdfiumError:
        return "whose size pdfium cannot read"
    if width * height > MAX_IMAGE_PIXELS:
        return f"of {width} × {height} pixels (over {MAX_IMAGE_PIXELS // 1_000_000} Mpixel)"
    if bits == 0:
        return "that pdfium cannot decode (corrupt or truncated)"
    return None


def image_report(page: int, problems: list[str]) -> list[str]:
    """Return one line per kind of image problem on a page, for the build's report."""
    counts = Counter(problems)
    return [
        f"page {page}: {n} embedded image(s) {problem}; kept as a region without OCR"
        for problem, n in counts.items()
    ]
