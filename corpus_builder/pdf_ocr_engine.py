"""Read one PDF page, or one region of it, with Tesseract: render, recognise, group into lines.

Runs inside an OCR worker process (corpus_builder.pdf_ocr). Word boxes from
`pytesseract.image_to_data` are grouped by Tesseract's own block, paragraph and line
numbers; pixel boxes are mapped back to PDF points with the page's top-left origin.
"""

from __future__ import annotations

from typing import Any

import pypdfium2 as pdfium
from PIL import Image

from state.corpus import Box, BoxedLine

MIN_LINE_CONFIDENCE = 40.0
"""Tesseract's mean word confidence (0-100) under which a line is noise read off a picture."""
OCR_ERRORS: tuple[type[BaseException], ...] = (
    pdfium.PdfiumError,
    RuntimeError,
    OSError,
    ValueError,
    MemoryError,
    Image.DecompressionBombError,
)
"""What rendering or recognition of a bad page raises (pytesseract's errors are RuntimeErrors
or OSErrors: a timeout, a crash of the tesseract process)."""


def read_lines(
    path: str, page: int, crop: Box | None, dpi: int, lang: str, timeout_s: float, max_pixels: int
) -> tuple[BoxedLine, ...]:
    """Return the text lines of a page (or of the crop box on it) with boxes in points.

    Raises:
        RuntimeError: If Tesseract times out or fails; pdfium or PIL errors for a bad page.
    """
    import pytesseract

    document = pdfium.PdfDocument(path)
    try:
        pdf_page = document[page]
        try:
            width, height = pdf_page.get_size()
            x1, y1, x2, y2 = crop or (0.0, 0.0, width, height)
            scale = dpi / 72
            pixels = (x2 - x1) * (y2 - y1) * scale * scale
            if pixels > max_pixels:
                scale *= (max_pixels / pixels) ** 0.5
            bitmap = pdf_page.render(scale=scale, crop=(x1, height - y2, width - x2, y1))
            image = bitmap.to_pil()
        finally:
            pdf_page.close()
    finally:
        document.close()
    data = pytesseract.image_to_data(
        image, lang=lang, timeout=timeout_s, output_type=pytesseract.Output.DICT
    )
    return tuple(_lines(data, scale, x1, y1))


def _lines(data: dict[str, list[Any]], scale: float, x0: float, y0: float) -> list[BoxedLine]:
    grouped: dict[tuple[int, int, int], list[int]] = {}
    for i, text in enumerate(data["text"]):
        if str(text).strip() and float(data["conf"][i]) >= 0:
            key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
            grouped.setdefault(key, []).append(i)
    lines = []
    for words in grouped.values():
        confidence = sum(float(data["conf"][i]) for i in words) / len(words)
        text = " ".join(str(data["text"][i]).strip() for i in words)
        if confidence < MIN_LINE_CONFIDENCE or not any(ch.isalnum() for ch in text):
            continue
        left = min(int(data["left"][i]) for i in words)
        top = min(int(data["top"][i]) for i in words)
        right = max(int(data["left"][i]) + int(data["width"][i]) for i in words)
        bottom = max(int(data["top"][i]) + int(data["height"][i]) for i in words)
        box = (x0 + left / scale, y0 + top / scale, x0 + right / scale, y0 + bottom / scale)
        lines.append(BoxedLine(text, tuple(round(v, 1) for v in box)))  # type: ignore[arg-type]
    return lines
