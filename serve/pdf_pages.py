"""The PDF behind a document, and its pages rendered as PNG (pypdfium2, the `pdf` extra).

Only the file an index recorded as a document's `source` when it was built is ever opened:
requests name a document and a page, never a path. Rendered pages are kept in a small LRU
keyed by file, modification time and page, so a rebuilt PDF is rendered afresh.
"""

from __future__ import annotations

import io
import threading
from functools import lru_cache
from pathlib import Path

from serve.errors import NotFoundError
from tools.errors import MissingDependencyError, install_hint
from tools.layered_graph import LayeredGraph

RENDER_SCALE = 1.5
"""Pixels per PDF point (72 dpi × 1.5 = 108 dpi): a letter page is 918 × 1188 pixels."""
MAX_SIDE_PX = 2400
"""A page's longer side in pixels at most, however large the page is declared."""
CACHED_PAGES = 32
_PDFIUM = threading.Lock()  # pdfium is not thread-safe: one render at a time per process


def document_pdf(graph: LayeredGraph, doc_id: str, index_name: str) -> tuple[Path, int]:
    """Return the PDF a document of the named index was built from and its page count.

    Raises:
        NotFoundError: If the document is unknown, not from a PDF, has no recorded source,
            or its file is gone.
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
    path = Path(str(source))
    if not path.is_file():
        raise NotFoundError(
            f"the PDF of {doc_id!r} is gone: {path} no longer exists (moved or deleted "
            "since the build); put it back or rebuild the index"
        )
    return path, page_count


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


def page_png(path: Path, page: int) -> bytes:
    """Return a page of a PDF rendered as PNG (cached).

    Raises:
        MissingDependencyError: If pypdfium2 (the `pdf` extra) is not installed.
    """
    return _rendered(str(path), path.stat().st_mtime_ns, page)


@lru_cache(maxsize=CACHED_PAGES)
def _rendered(path: str, mtime_ns: int, page: int) -> bytes:
    """Render a page; `mtime_ns` only keys the cache, so a changed file is read again."""
    try:
        import pypdfium2 as pdfium
    except ImportError as err:
        raise MissingDependencyError(
            f"rendering PDF pages needs pypdfium2: {install_hint('pdf')}"
        ) from err
    out = io.BytesIO()
    with _PDFIUM:
        pdf = pdfium.PdfDocument(path)
        try:
            sheet = pdf[page]
            width, height = sheet.get_size()
            scale = min(RENDER_SCALE, MAX_SIDE_PX / max(width, height, 1.0))
            # encoded before the file closes: the image shares pdfium's bitmap buffer
            sheet.render(scale=scale).to_pil().save(out, format="PNG")
        finally:
            pdf.close()
    return out.getvalue()
