"""Page images of PDF documents, rendered once into the index for the image embedder.

With an image embedder, each PDF page that holds a region (a figure, chart, picture or
table found as a box) and each page without a text layer is rendered by pypdfium2 at
RENDER_SCALE (lowered for pages over MAX_PIXELS) into `<index>/page-images/`. A file is
named by the PDF's content hash, the page and the settings, so a rebuild reuses it and a
changed PDF is rendered afresh. A page that cannot be rendered is named in the manifest's
`repaired` list and the rest builds. Without an image embedder nothing is rendered.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from state.corpus import Document, IngestReport
from tools.pdf_render import render_page

if TYPE_CHECKING:
    from PIL.Image import Image

logger = logging.getLogger(__name__)

PAGE_IMAGES = "page-images"
"""Folder of rendered pages inside the index."""
RENDER_SCALE = 2.0
"""Pixels per point (144 dpi): a region of a tenth of the page still has CLIP's 224 pixels."""
MAX_PIXELS = 6_000_000
"""A page bigger than this at RENDER_SCALE (a poster) is rendered smaller."""
RENDER_ERRORS: tuple[type[BaseException], ...] = (OSError, ValueError, RuntimeError, IndexError)
"""What pdfium (its PdfiumError is a RuntimeError) or PIL raise on a damaged page."""


@dataclass(frozen=True)
class PageImage:
    """A rendered page: its file, a digest naming its content, and the scale it was drawn at."""

    path: str
    digest: str
    scale: float
    size: tuple[int, int]


@dataclass
class RenderStats:
    """What rendering did: pages rendered, reused from the cache, failed, and seconds spent."""

    rendered: int = 0
    reused: int = 0
    failed: int = 0
    seconds: float = 0.0
    pages: dict[tuple[str, int], PageImage] = field(default_factory=dict)
    """(doc id, zero-indexed page) -> its image."""


def wanted_pages(document: Document) -> list[int]:
    """Return the pages of a PDF document that need an image: its regions' and text-less ones."""
    pages = set(document.textless_pages)
    for component in document.components:
        if component.kind == "image" and component.box is not None and component.pages:
            pages.add(component.pages[0])
    if document.page_count:
        pages = {p for p in pages if 0 <= p < document.page_count}
    return sorted(pages)


def render_documents(
    documents: Iterable[Document], folder: Path, report: IngestReport
) -> RenderStats:
    """Render (or reuse) the wanted pages of every document read from a PDF file."""
    stats = RenderStats()
    started = time.perf_counter()
    for document in documents:
        source = Path(document.source)
        pages = wanted_pages(document)
        if not pages or source.suffix.lower() != ".pdf" or not source.is_file():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        stem = _file_digest(source)
        for page in pages:
            image = _page_image(source, stem, page, folder, stats)
            if image is None:
                problem = f"page {page} cannot be rendered; it has no image vector"
                report.repair(str(source), problem)
            else:
                stats.pages[document.doc_id, page] = image
    stats.seconds = time.perf_counter() - started
    if stats.pages or stats.failed:
        logger.info(
            "page images: %d rendered, %d reused, %d failed in %.1f s",
            stats.rendered, stats.reused, stats.failed, stats.seconds,
        )  # fmt: skip
    return stats


def _page_image(
    source: Path, stem: str, page: int, folder: Path, stats: RenderStats
) -> PageImage | None:
    """Return a page's image from the cache, else render and store it (None on failure)."""
    from PIL import Image

    digest = f"{stem}-p{page}-s{RENDER_SCALE:g}-m{MAX_PIXELS}"
    target = folder / f"{digest}.png"
    if target.is_file():
        try:
            with Image.open(target) as cached:
                size, scale = cached.size, float(str(cached.info.get("fif_scale", "0"))) or None
        except RENDER_ERRORS:
            scale = None
        if scale is not None:
            stats.reused += 1
            return PageImage(str(target), digest, scale, size)
    try:
        image, scale = render_page(str(source), page, RENDER_SCALE, MAX_PIXELS)
    except RENDER_ERRORS as err:
        logger.warning("%s page %d cannot be rendered: %s", source, page, err)
        stats.failed += 1
        return None
    _save(image, scale, target)
    stats.rendered += 1
    return PageImage(str(target), digest, scale, image.size)


def _save(image: Image, scale: float, target: Path) -> None:
    """Write a PNG with its scale in a text chunk, atomically (a killed build leaves none)."""
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("fif_scale", repr(scale))
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        image.save(tmp, format="PNG", pnginfo=info)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _file_digest(path: Path) -> str:
    """Return a short hash of a file's bytes, read in blocks (PDFs can be large)."""
    digest = hashlib.sha1()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()[:16]
