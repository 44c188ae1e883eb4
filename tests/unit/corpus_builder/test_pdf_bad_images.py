"""PDFs whose embedded image is corrupt, huge or off the page: each is named, the rest is read.

A corrupt or huge image keeps its region (box, caption) but is not sent to OCR.

The PDFs are written byte by byte (fpdf2 refuses broken images): one letter page with a
line of text, a picture drawn at PICTURE_BOX and its caption. pdfium reads an image's
declared size and header without decoding it, so none of these costs a decode.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from corpus_builder.pdf_ingest import read_pdfs
from corpus_builder.pdf_ocr_pages import ocr_jobs
from corpus_builder.pdf_reader import read_pdf
from state.corpus import Box, IngestReport

PICTURE_BOX = (120.0, 300.0, 420.0, 480.0)
"""Where the picture is drawn (points, top-left origin on a 612 × 792 page)."""
GOOD = "/Width 2 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8", b"\x10\x20\xc0" * 4
CORRUPT = (
    "/Width 64 /Height 64 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode",
    b"\xff\xd8\xff not a JPEG after all" * 8,
)
HUGE = (
    "/Width 60000 /Height 60000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
    zlib.compress(b"\0" * 1000),
)


def write_pdf(path: Path, image: tuple[str, bytes], box: Box = PICTURE_BOX) -> Path:
    """Write a one-page PDF drawing `image` (its dictionary entries, its stream) at `box`."""
    x1, y1, x2, y2 = box
    content = (
        "BT /F1 11 Tf 72 720 Td (The plant report. See Figure 1.) Tj ET\n"
        f"q {x2 - x1} 0 0 {y2 - y1} {x1} {792 - y2} cm /Im1 Do Q\n"
        f"BT /F1 10 Tf {x1} {792 - y2 - 20} Td (Figure 1: The plant) Tj ET\n"
    ).encode()
    entries, stream = image
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /XObject /Subtype /Image %s /Length %d >>\nstream\n%s\nendstream"
        % (entries.encode(), len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path


@pytest.mark.parametrize(
    ("image", "problem"),
    [
        (CORRUPT, "1 embedded image(s) that pdfium cannot decode (corrupt or truncated)"),
        (HUGE, "1 embedded image(s) of 60000 × 60000 pixels (over 100 Mpixel)"),
    ],
)
def test_a_bad_image_keeps_its_region_without_ocr_and_is_named(
    tmp_path: Path, image: tuple[str, bytes], problem: str
) -> None:
    pdf = read_pdf(write_pdf(tmp_path / "plant.pdf", image))
    [region] = pdf.pages[0].regions
    assert region.box == PICTURE_BOX and not region.raster
    assert ocr_jobs(pdf) == []
    assert pdf.pages[0].problems == [f"page 0: {problem}; kept as a region without OCR"]


def test_a_good_image_is_a_raster_region_that_ocr_reads(tmp_path: Path) -> None:
    pdf = read_pdf(write_pdf(tmp_path / "plant.pdf", GOOD))
    [region] = pdf.pages[0].regions
    assert region.box == PICTURE_BOX and region.raster and pdf.pages[0].problems == []
    assert [(job.page, job.crop) for job in ocr_jobs(pdf)] == [(0, PICTURE_BOX)]


def test_each_bad_image_is_named_in_the_report_and_every_file_is_read(tmp_path: Path) -> None:
    for name, image in (("corrupt", CORRUPT), ("huge", HUGE), ("good", GOOD)):
        write_pdf(tmp_path / f"{name}.pdf", image)
    write_pdf(tmp_path / "off_page.pdf", GOOD, (700.0, 300.0, 1000.0, 480.0))  # right of it
    report = IngestReport()  # what the build writes as the manifest's `repaired`
    documents = read_pdfs(sorted(tmp_path.glob("*.pdf")), report, ocr=None)
    named = {Path(r.where).stem: r.problem for r in report.repaired if "image" in r.problem}
    assert set(named) == {"corrupt", "huge", "off_page"}
    assert "cannot decode" in named["corrupt"] and "60000 × 60000" in named["huge"]
    assert named["off_page"] == "page 0: an image lies outside the page; ignored"
    hidden = [r.problem for r in report.repaired if "text line" in r.problem]
    assert hidden == ["page 0: 1 text line(s) outside the page; ignored"]  # its caption
    assert sorted(d.doc_id for d in documents) == ["corrupt", "good", "huge", "off_page"]
    for document in documents:  # each keeps its picture as an image component with its box
        pictures = [c.box for c in document.components if c.kind == "image"]
        assert pictures == ([] if document.doc_id == "off_page" else [PICTURE_BOX])
        assert "See Figure 1" in " ".join(c.text for c in document.components)


def test_a_picture_cut_by_the_page_edge_keeps_boxes_inside_the_page(tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "edge.pdf", GOOD, (540.0, 300.0, 840.0, 480.0))
    report = IngestReport()
    [document] = read_pdfs([pdf], report, ocr=None)
    boxes = {c.kind: c.box for c in document.components}
    assert boxes["image"] == (540.0, 300.0, 612.0, 480.0)  # the part on the page
    assert boxes["paragraph"] is not None and boxes["paragraph"][2] == 612.0  # its caption runs off
    assert report.repaired == []
