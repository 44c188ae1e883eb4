"""Read a PDF with pypdfium2 into pages of text lines with their position, size and weight.

One text-page pass per page (`get_text_range`) gives the lines; only the first visible
character of a line is asked for its box and font, so reading costs a few calls per line
instead of one per character. Link annotations with a destination page and image objects
near a caption line are kept for cross-references and figures. pypdfium2 comes with the
`pdf` extra; importing this module without it raises MissingDependencyError.
"""

from __future__ import annotations

import ctypes
import logging
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from corpus_builder.pdf_images import image_problem, image_report
from corpus_builder.pdf_pages import (
    CAPTION_LINE,
    MIB,
    PdfFile,
    PdfLimits,
    PdfLine,
    PdfLink,
    PdfPage,
    PdfReadError,
    lines_on_page,
    same_printed_line,
)
from corpus_builder.pdf_regions import GraphicObject, find_regions
from tools.errors import MissingDependencyError, install_hint

try:
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c
except ImportError as err:
    raise MissingDependencyError(f"reading PDFs needs pypdfium2: {install_hint('pdf')}") from err

logger = logging.getLogger(__name__)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_RULE = re.compile(r"_{3,}")
"""Underscore rules that pdfium joins to the text beside them."""
_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.I)
BOLD_WEIGHT = 600
"""FPDFText_GetFontWeight at or above this is bold; many embedded fonts report 0 (unknown),
so the font name ("Times-Bold") decides then."""
_FONT_NAME_BYTES = 128
MAX_OBJECTS = 20000
"""Page objects searched for regions per page (a detailed map has more; its first are enough)."""
MIN_IMAGE_SHARE = 0.02
"""Images covering less of the page than this (logos, rules, signatures) are not figures."""


def read_pdf(path: Path, limits: PdfLimits | None = None) -> PdfFile:
    """Read every page of a PDF into lines, links and figure boxes.

    Raises:
        PdfReadError: If the file is over a limit, encrypted, corrupt or truncated beyond repair.
    """
    limits = limits or PdfLimits()
    size = path.stat().st_size
    if size > limits.max_bytes:
        raise PdfReadError(
            path,
            f"{size / MIB:.0f} MiB, over the {limits.max_bytes / MIB:.0f} MiB PDF limit; "
            "raise it with `fif build --pdf-max-mb N` to read it",
        )
    document = _open(path)
    try:
        count = len(document)
        if count > limits.max_pages:
            raise PdfReadError(
                path,
                f"{count} pages, over the {limits.max_pages}-page limit; "
                "raise it with `fif build --pdf-max-pages N` to read it",
            )
        result = PdfFile(path, _metadata_title(document), outline_entries(document, count), [])
        for index in range(count):
            try:
                page = _read_page(document, index)
            except pdfium.PdfiumError as err:  # one damaged page; the others still read
                logger.warning("%s: page %d unreadable (%s); kept empty", path, index, err)
                result.unreadable_pages.append(index)
                page = PdfPage(index, 0.0)
            if not page.lines:
                result.textless_pages.append(index)
            result.pages.append(page)
        if len(result.unreadable_pages) == count:
            raise PdfReadError(path, "no page can be loaded; the file is corrupt or truncated")
        return result
    finally:
        document.close()


def _open(path: Path) -> pdfium.PdfDocument:
    try:
        return pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as err:
        message = str(err)
        if "password" in message.lower():
            raise PdfReadError(
                path, "encrypted (needs a password); decrypt it (qpdf --decrypt) and rebuild"
            ) from err
        raise PdfReadError(
            path, f"not a readable PDF ({message}); re-download or re-export the file"
        ) from err


def _metadata_title(document: pdfium.PdfDocument) -> str:
    try:
        return str(document.get_metadata_dict().get("Title", "")).strip()
    except pdfium.PdfiumError:
        return ""


def outline_entries(document: pdfium.PdfDocument, count: int) -> list[tuple[int, str, int]]:
    """Return the outline (bookmarks) as (level, title, zero-indexed page), pages in range."""
    entries = []
    try:
        for item in document.get_toc(max_depth=8):
            title = " ".join(item.get_title().split())
            page = item.get_dest().get_index() if item.get_dest() is not None else None
            if title and page is not None and 0 <= page < count:
                entries.append((item.level, title, page))
    except pdfium.PdfiumError as err:
        logger.warning("outline unreadable (%s); headings are detected instead", err)
    return entries


def _read_page(document: pdfium.PdfDocument, index: int) -> PdfPage:
    """Read one page's lines, links, regions and figure boxes; PdfiumError when pdfium cannot."""
    page = document[index]
    try:
        width, height = page.get_size()
        result = PdfPage(index, height, width=width)
        textpage = page.get_textpage()
        try:
            result.lines, hidden = lines_on_page(_lines(textpage, index), width, height)
        finally:
            textpage.close()
        result.links = _links(document, page, index)
        if any(CAPTION_LINE.match(line.text) for line in result.lines):
            result.images = _images(page)
        graphics, problems = _graphics(page, index)
        result.regions, off_page = find_regions(index, width, height, graphics)
        result.problems = problems + off_page
        if hidden:
            result.problems.append(f"page {index}: {hidden} text line(s) outside the page; ignored")
        return result
    finally:
        page.close()


def _graphics(page: pdfium.PdfPage, index: int) -> tuple[list[GraphicObject], list[str]]:
    """Return the page's top-level image, path and form objects (forms holding images: raster)."""
    kinds = {
        pdfium_c.FPDF_PAGEOBJ_IMAGE: "image",
        pdfium_c.FPDF_PAGEOBJ_PATH: "path",
        pdfium_c.FPDF_PAGEOBJ_FORM: "form",
    }
    found: list[GraphicObject] = []
    bad, images = 0, []
    for count, obj in enumerate(page.get_objects(max_depth=2)):
        if count >= MAX_OBJECTS:
            return found, [f"page {index}: over {MAX_OBJECTS} objects; the rest not searched"]
        if obj.level > 0:  # inside a form: its bounds are in the form's space
            if obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE and found and found[-1].kind == "form":
                found[-1] = replace(found[-1], raster=True)
            continue
        kind = kinds.get(obj.type)
        if kind is None:
            continue
        try:
            left, bottom, right, top = obj.get_bounds()
        except pdfium.PdfiumError:
            bad += 1
            continue
        problem = image_problem(obj) if kind == "image" else None
        if problem is not None:
            images.append(problem)  # its region stays, drawn like a figure: OCR skips it
        raster = kind == "image" and problem is None
        found.append(GraphicObject(kind, left, bottom, right, top, raster=raster))  # type: ignore[arg-type]
    problems = [f"page {index}: {bad} object(s) without readable bounds; ignored"] if bad else []
    return found, problems + image_report(index, images)


def _lines(textpage: pdfium.PdfTextPage, index: int) -> list[PdfLine]:
    text = textpage.get_text_range()
    lines: list[PdfLine] = []
    start = 0
    for match in [*_LINE_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        raw = text[start:end]
        stripped = raw.strip()
        if stripped:
            first = start + (len(raw) - len(raw.lstrip()))
            line = _line(textpage, first, stripped, index)
            line = replace(line, right=_right(textpage, first + len(stripped) - 1))
            if lines and same_printed_line(lines[-1], line):
                previous = lines.pop()
                line = replace(previous, text=f"{previous.text} {line.text}")
            lines.append(line)
        start = match.end() if match else end
    return lines


def _line(textpage: pdfium.PdfTextPage, char: int, text: str, index: int) -> PdfLine:
    rect = pdfium_c.FS_RECTF()
    pdfium_c.FPDFText_GetLooseCharBox(textpage, char, rect)
    name = ctypes.create_string_buffer(_FONT_NAME_BYTES)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage, char, name, _FONT_NAME_BYTES, flags)
    weight = pdfium_c.FPDFText_GetFontWeight(textpage, char)
    bold = weight >= BOLD_WEIGHT or bool(_BOLD_NAME.search(name.value.decode("latin-1")))
    return PdfLine(
        text=" ".join(_RULE.sub(" ", text).split()) or text,
        page=index,
        top=rect.top,
        bottom=rect.bottom,
        left=rect.left,
        size=round(rect.top - rect.bottom, 1),
        bold=bold,
    )


def _right(textpage: pdfium.PdfTextPage, char: int) -> float:
    rect = pdfium_c.FS_RECTF()
    pdfium_c.FPDFText_GetLooseCharBox(textpage, char, rect)
    return float(rect.right)


def _links(document: pdfium.PdfDocument, page: pdfium.PdfPage, index: int) -> list[PdfLink]:
    links = []
    position = ctypes.c_int(0)
    link = pdfium_c.FPDF_LINK()
    while pdfium_c.FPDFLink_Enumerate(page, ctypes.byref(position), ctypes.byref(link)):
        dest = pdfium_c.FPDFLink_GetDest(document, link)
        if not dest:
            action = pdfium_c.FPDFLink_GetAction(link)
            if not action or pdfium_c.FPDFAction_GetType(action) != pdfium_c.PDFACTION_GOTO:
                continue
            dest = pdfium_c.FPDFAction_GetDest(document, action)
        target = pdfium_c.FPDFDest_GetDestPageIndex(document, dest) if dest else -1
        rect = pdfium_c.FS_RECTF()
        if target < 0 or target == index or not pdfium_c.FPDFLink_GetAnnotRect(link, rect):
            continue
        top, bottom = max(rect.top, rect.bottom), min(rect.top, rect.bottom)
        links.append(PdfLink(index, top, bottom, target, _dest_top(dest)))
    return links


def _dest_top(dest: Any) -> float | None:
    has_x, has_y, has_zoom = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    x, y, zoom = pdfium_c.FS_FLOAT(), pdfium_c.FS_FLOAT(), pdfium_c.FS_FLOAT()
    found = pdfium_c.FPDFDest_GetLocationInPage(
        dest, has_x, has_y, has_zoom, ctypes.byref(x), ctypes.byref(y), ctypes.byref(zoom)
    )
    return float(y.value) if found and has_y.value else None


def _images(page: pdfium.PdfPage) -> list[tuple[float, float]]:
    width, height = page.get_size()
    boxes = []
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2):
        left, bottom, right, top = obj.get_bounds()
        if right <= 0 or left >= width or top <= 0 or bottom >= height:
            continue  # off the page: never printed (find_regions reports it)
        if (right - left) * (top - bottom) >= MIN_IMAGE_SHARE * width * height:
            boxes.append((top, bottom))
    return boxes
