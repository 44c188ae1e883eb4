"""The PDF behind a document, its page sizes, and its pages rendered as PNG (pypdfium2).

Only the file an index recorded as a document's `source` when it was built is ever opened:
requests name a document and a page, never a path. The build recorded the file's resolved
path, so a path that now resolves elsewhere (a symlink put in its place since) is refused,
and so is a file that no longer starts like a PDF. Rendered pages are kept in a small LRU
keyed by file, modification time, page and scale, so a rebuilt PDF is rendered afresh.
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from pathlib import Path

from serve.errors import NotFoundError, OutsideFolderError
from tools.layered_graph import LayeredGraph
from tools.pdf_render import pdfium_module, render_page

RENDER_SCALE = 1.5
"""Pixels per PDF point by default (72 dpi × 1.5 = 108 dpi): a letter page is 918 × 1188."""
MIN_SCALE, MAX_SCALE, SCALE_STEP = 0.25, 3.0, 0.25
"""Scales a request may ask for; a scale is rounded to a step, so the cache keys stay few."""
MAX_SIDE_PX = 2400
"""A page's longer side in pixels at most, whatever the scale or the page's declared size."""
MAX_PAGE_PIXELS = MAX_SIDE_PX * MAX_SIDE_PX
"""Never the binding limit (the longer side is): the renderer asks for a pixel budget too."""
CACHED_PAGES = 32
MAX_PAGE = 100_000
"""Largest page number a request may name (a bound before the document's own range)."""
PDF_HEADER = b"%PDF-"
HEADER_WINDOW = 1024
"""Bytes at the start of a file where readers look for the PDF header."""
_PDFIUM = threading.Lock()  # pdfium is not thread-safe: one call at a time per process


def document_pdf(graph: LayeredGraph, doc_id: str, index_name: str) -> tuple[Path, int]:
    """Return the PDF a document of the named index was built from and its page count.

    Raises:
        NotFoundError: If the document is unknown, not from a PDF, has no recorded source,
            or its file is gone or no longer a PDF.
        OutsideFolderError: If the recorded path now resolves to another file.
    """
    if doc_id not in graph or graph.node(doc_id).layer != 0:
        raise NotFoundError(f"no document {doc_id!r} in index {index_name!r}")
    attrs = graph.node(doc_id).attrs
    page_count = int(attrs.get("page_count") or 0)
    if not page_count:
        raise NotFoundError(f"document {doc_id!r} was not built from a PDF: it has no pages")
    source = attrs.get("source")
    if not source:
        raise NotFoundError(
            f"the index did not record the PDF of {doc_id!r} (built by an older fif); "
            "rebuild it with `fif build --rebuild` to serve its pages"
        )
    return _checked(Path(str(source)), doc_id), page_count


def _checked(path: Path, doc_id: str) -> Path:
    """Return the recorded PDF path once it is still the file the build read."""
    if not path.is_absolute() or path.suffix.lower() != ".pdf":
        raise NotFoundError(
            f"the index records {str(path)!r} as the PDF of {doc_id!r}, not an absolute "
            "path of a .pdf file; rebuild the index with `fif build --rebuild`"
        )
    if path.resolve() != path:
        raise OutsideFolderError(
            f"the PDF of {doc_id!r} ({path}) now resolves to another file (a symlink put "
            "in its place since the build); the server reads only the file the index "
            "recorded: put the PDF back or rebuild the index"
        )
    if not path.is_file():
        raise NotFoundError(
            f"the PDF of {doc_id!r} is gone: {path} no longer exists (moved or deleted "
            "since the build); put it back or rebuild the index"
        )
    with path.open("rb") as file:
        if PDF_HEADER not in file.read(HEADER_WINDOW):
            raise NotFoundError(
                f"the PDF of {doc_id!r} ({path}) is no longer a PDF (no %PDF- header): "
                "it was replaced since the build; put the PDF back or rebuild the index"
            )
    return path


def check_page(doc_id: str, page: int, page_count: int) -> None:
    """Refuse a zero-indexed page outside the document.

    Raises:
        NotFoundError: Naming the valid range.
    """
    if not 0 <= page < page_count:
        raise NotFoundError(
            f"page {page} is out of range for {doc_id!r}: pages are zero-indexed, "
            f"0..{page_count - 1} ({page_count} pages)"
        )


def stepped_scale(scale: float) -> float:
    """Return a requested scale rounded to SCALE_STEP and kept in [MIN_SCALE, MAX_SCALE]."""
    stepped = round(scale / SCALE_STEP) * SCALE_STEP
    return min(MAX_SCALE, max(MIN_SCALE, stepped))


def page_png(path: Path, page: int, scale: float = RENDER_SCALE) -> bytes:
    """Return a page of a PDF rendered as PNG at about `scale` pixels per point (cached).

    Raises:
        MissingDependencyError: If pypdfium2 (the `pdf` extra) is not installed.
    """
    return _rendered(str(path), path.stat().st_mtime_ns, page, stepped_scale(scale))


def page_size(path: Path, page: int) -> tuple[float, float]:
    """Return a page's width and height in PDF points (cached), as boxes are measured.

    Raises:
        MissingDependencyError: If pypdfium2 (the `pdf` extra) is not installed.
    """
    return _size(str(path), path.stat().st_mtime_ns, page)


@lru_cache(maxsize=CACHED_PAGES * 8)
def _size(path: str, mtime_ns: int, page: int) -> tuple[float, float]:
    """Read a page's size; `mtime_ns` only keys the cache, so a changed file is read again."""
    pdfium = pdfium_module()
    with _PDFIUM:
        pdf = pdfium.PdfDocument(path)
        try:
            width, height = pdf[page].get_size()
        finally:
            pdf.close()
    return float(width), float(height)


@lru_cache(maxsize=CACHED_PAGES)
def _rendered(path: str, mtime_ns: int, page: int, scale: float) -> bytes:
    """Render a page; `mtime_ns` only keys the cache, so a changed file is read again."""
    with _PDFIUM:
        image, _ = render_page(path, page, scale, MAX_PAGE_PIXELS, MAX_SIDE_PX)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
