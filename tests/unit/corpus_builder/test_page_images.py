"""PDF page images for the image embedder: rendering, cache, pixel boxes and image items."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fpdf import FPDF
from PIL import Image

from corpus_builder import page_images
from corpus_builder.embed_content import ImageCrop
from corpus_builder.page_images import PageImage, render_documents, wanted_pages
from corpus_builder.pdf_image_items import pdf_image_items
from corpus_builder.pdf_ingest import read_pdf_document
from state.corpus import Component, Document, IngestReport
from tools.pdf_render import bounded_scale, pixel_box

RED_BOX = (100.0, 200.0, 300.0, 320.0)
"""Where the red picture sits on page 0 (points, top-left origin)."""


def write_red_block(path: Path) -> Path:
    """Write a one-page PDF: a sentence, a solid red picture at RED_BOX, and its caption."""
    picture = path.with_suffix(".red.png")
    Image.new("RGB", (200, 120), (255, 0, 0)).save(picture)
    pdf = FPDF(unit="pt", format="letter")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(72, 90)
    pdf.multi_cell(450, 14, "The red block below is shown in Figure 1.")
    x1, y1, x2, y2 = RED_BOX
    pdf.image(str(picture), x1, y1, x2 - x1, y2 - y1)
    pdf.text(x1, y2 + 20, "Figure 1: A red block")
    pdf.output(str(path))
    return path


def read(path: Path) -> Document:
    document = read_pdf_document(path, IngestReport())
    assert document is not None
    return document


def test_a_region_crop_lands_on_its_pixels(tmp_path: Path) -> None:
    document = read(write_red_block(tmp_path / "red.pdf"))
    [region] = [c for c in document.components if c.kind == "image"]
    assert region.box is not None and np.allclose(region.box, RED_BOX, atol=0.5)
    stats = render_documents([document], tmp_path / "pages", IngestReport())
    image = stats.pages[document.doc_id, 0]
    assert image.scale == 2.0 and image.size == (1224, 1584)  # letter at 144 dpi
    [item] = pdf_image_items([document], stats.pages)
    assert item.node_id == region.component_id and item.metadata["type"] == "image"
    assert isinstance(item.content, ImageCrop)
    assert item.content.box == (200, 400, 600, 640)  # RED_BOX × 2
    with Image.open(item.content.path) as opened:
        pixels = np.asarray(opened.convert("RGB"), dtype=int)
    x1, y1, x2, y2 = item.content.box
    inside = pixels[y1 + 2 : y2 - 2, x1 + 2 : x2 - 2]
    assert (inside[..., 0] > 240).all() and (inside[..., 1:] < 15).all()  # all red
    ring = [
        pixels[y1 - 3, x1:x2],
        pixels[y2 + 2, x1:x2],
        pixels[y1:y2, x1 - 3],
        pixels[y1:y2, x2 + 2],
    ]
    assert all((side > 240).all() for side in ring)  # white just outside


def test_pages_are_rendered_once_and_reused(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    document = read(report_writer(tmp_path / "report.pdf"))
    assert wanted_pages(document) == [0, 1, 2]  # chart, photo, text-less page
    first = render_documents([document], tmp_path / "pages", IngestReport())
    again = render_documents([document], tmp_path / "pages", IngestReport())
    assert (first.rendered, first.reused, again.rendered, again.reused) == (3, 0, 0, 3)
    assert again.pages == first.pages
    assert len(list((tmp_path / "pages").glob("*.png"))) == 3


def test_a_page_that_cannot_be_rendered_is_reported_and_the_rest_kept(
    tmp_path: Path, report_writer: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    document = read(report_writer(tmp_path / "report.pdf"))
    real = page_images.render_page

    def broken_on_page_one(path: str, page: int, scale: float, pixels: int) -> object:
        if page == 1:
            raise RuntimeError("Failed to load page.")
        return real(path, page, scale, pixels)

    monkeypatch.setattr(page_images, "render_page", broken_on_page_one)
    report = IngestReport()
    stats = render_documents([document], tmp_path / "pages", report)
    assert sorted(page for _, page in stats.pages) == [0, 2] and stats.failed == 1
    assert [r.problem for r in report.repaired] == [
        "page 1 cannot be rendered; it has no image vector"
    ]


def test_a_textless_page_is_embedded_whole_under_its_first_component() -> None:
    ocr_text = Component("d::p1", "d", "paragraph", 1, text="scanned words", pages=(1, 1))
    figure = Component("d::i0", "d", "image", 0, pages=(1, 1), box=(0.0, 0.0, 10.0, 10.0))
    document = Document("d", "D", components=(figure, ocr_text), textless_pages=(1,))
    page = PageImage("/x/page.png", "abc-p1", 2.0, (40, 40))
    items = {item.node_id: item for item in pdf_image_items([document], {("d", 1): page})}
    assert items["d::i0"].content == ImageCrop("abc-p1", "/x/page.png", (0, 0, 20, 20))
    assert items["d::p1"].content == ImageCrop("abc-p1", "/x/page.png", None)  # whole page
    assert items["d::p1"].metadata["type"] == "image"


def test_a_page_sized_region_stands_for_its_textless_page() -> None:
    whole = Component("d::i0", "d", "image", 0, pages=(0, 0), box=(0.0, 0.0, 612.0, 792.0))
    document = Document("d", "D", components=(whole,), textless_pages=(0,))
    page = PageImage("/x/page.png", "abc-p0", 1.0, (612, 792))
    [item] = pdf_image_items([document], {("d", 0): page})
    assert item.content == ImageCrop("abc-p0", "/x/page.png", (0, 0, 612, 792))


def test_boxes_are_clipped_and_big_pages_rendered_smaller() -> None:
    assert pixel_box((-5.0, 10.0, 50.0, 500.0), 2.0, (80, 900)) == (0, 20, 80, 900)
    assert pixel_box((50.0, 10.0, 60.0, 20.0), 2.0, (80, 900)) is None  # right of the image
    assert bounded_scale(612, 792, 2.0, 6_000_000) == 2.0
    poster = bounded_scale(2000, 3000, 2.0, 6_000_000)
    assert poster == pytest.approx(1.0) and 2000 * 3000 * poster**2 <= 6_000_000 + 1
