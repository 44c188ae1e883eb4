"""Render one PDF page to an image at a bounded scale (pypdfium2, the `pdf` extra).

The scale asked for is lowered for a page so large that its image would pass `max_pixels`,
so a poster-sized page cannot exhaust memory; the scale used is returned with the image,
so callers can map boxes in points to pixels (`pixel_box`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tools.errors import MissingDependencyError, install_hint

if TYPE_CHECKING:
    from PIL.Image import Image


def bounded_scale(width: float, height: float, scale: float, max_pixels: int) -> float:
    """Return `scale`, lowered so a page of width × height points renders to ≤ max_pixels."""
    area = max(width, 1.0) * max(height, 1.0)
    return min(scale, math.sqrt(max_pixels / area))


def pdfium_module() -> Any:
    """Return pypdfium2, or raise saying which extra installs it."""
    try:
        import pypdfium2 as pdfium
    except ImportError as err:
        raise MissingDependencyError(
            f"rendering PDF pages needs pypdfium2: {install_hint('pdf')}"
        ) from err
    return pdfium


def render_page(
    path: str, page: int, scale: float, max_pixels: int, max_side: float | None = None
) -> tuple[Image, float]:
    """Return a page of a PDF rendered as an RGB image, and the scale (pixels per point) used.

    The scale is lowered so the image has at most `max_pixels` pixels and, when given, a
    longer side of at most `max_side` pixels. pdfium is not thread-safe: call it from one
    thread at a time per process.

    Raises:
        MissingDependencyError: If pypdfium2 is not installed.
        pypdfium2.PdfiumError: If the file or page cannot be loaded or rendered.
    """
    document = pdfium_module().PdfDocument(path)
    try:
        sheet = document[page]
        width, height = sheet.get_size()
        used = bounded_scale(width, height, scale, max_pixels)
        if max_side is not None:
            used = min(used, max_side / max(width, height, 1.0))
        # copied before the file closes: the bitmap shares pdfium's buffer
        image = sheet.render(scale=used).to_pil().convert("RGB")
    finally:
        document.close()
    return image, used


def pixel_box(
    box: tuple[float, float, float, float], scale: float, size: tuple[int, int]
) -> tuple[int, int, int, int] | None:
    """Return a box in points (top-left origin) as pixels of an image rendered at `scale`.

    The box is clipped to the image; None when nothing of it is left.
    """
    width, height = size
    x1 = min(max(round(box[0] * scale), 0), width)
    y1 = min(max(round(box[1] * scale), 0), height)
    x2 = min(max(round(box[2] * scale), 0), width)
    y2 = min(max(round(box[3] * scale), 0), height)
    return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None
