"""A tiny generated report PDF with a vector chart, a photo, references and a scanned page.

Page 0: a paragraph that says "As shown in Figure 1", a bar chart drawn as path objects with
its labels as text, and the caption "Figure 1: Anvil sales by year" under it. Page 1: a
raster photo captioned "Figure 2: The anvil plant" and "See Figure 2 ...". Page 2: an image
only (no text layer), as a scanned page. Boxes below are in points, top-left origin.
"""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

CHART_BOX = (72.0, 200.0, 372.0, 400.0)
"""Where the bar chart is drawn (x1, y1, x2, y2)."""
PHOTO_BOX = (72.0, 150.0, 372.0, 350.0)


def write_report(path: Path, scan_text: str = "SCANNED PAGE") -> Path:
    """Write the report at path and return it."""
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(72, 90)
    pdf.multi_cell(450, 14, "Sales grew every year. As shown in Figure 1, the anvil line led.")
    x1, y1, x2, y2 = CHART_BOX
    pdf.line(x1, y2, x2, y2)
    pdf.line(x1, y1, x1, y2)
    for n, height in enumerate((60, 90, 120, 150, 170)):
        pdf.rect(x1 + 20 + n * 55, y2 - height, 30, height, style="F")
    pdf.set_font("Helvetica", size=8)
    for n, year in enumerate(("2019", "2020", "2021", "2022", "2023")):
        pdf.text(x1 + 22 + n * 55, y2 - 4 - (60, 90, 120, 150, 170)[n] - 2, year)
    pdf.set_font("Helvetica", size=10)
    pdf.text(x1, y2 + 20, "Figure 1: Anvil sales by year")
    pdf.add_page()
    pdf.set_xy(72, 90)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(450, 14, "See Figure 2 for a view of the plant where anvils are made.")
    pdf.image(_picture(path.with_suffix(".photo.png"), ""), *_xywh(PHOTO_BOX))
    pdf.text(PHOTO_BOX[0], PHOTO_BOX[3] + 20, "Figure 2: The anvil plant")
    pdf.add_page()
    pdf.image(_picture(path.with_suffix(".scan.png"), scan_text), 0, 0, pdf.w, pdf.h)
    pdf.output(str(path))
    return path


def _xywh(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    return box[0], box[1], box[2] - box[0], box[3] - box[1]


def _picture(path: Path, text: str) -> Path:
    image = Image.new("RGB", (300, 200), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 20, 280, 180), outline="black")
    if text:
        draw.text((30, 80), text, fill="black", font=ImageFont.load_default(size=28))
    image.save(path)
    return path
