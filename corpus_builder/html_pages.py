"""Read a folder of plain HTML pages into documents whose components link to each other."""

from __future__ import annotations

import codecs
import logging
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import charset_normalizer
from bs4 import BeautifulSoup, Tag, XMLParsedAsHTMLWarning

from corpus_builder.folder_files import folder_files
from corpus_builder.html_components import ComponentWalker
from corpus_builder.html_links import PAGE_SUFFIXES, LinkIndex
from corpus_builder.html_tags import element_text
from corpus_builder.images import ImageGuard
from state.corpus import Document, IngestReport
from state.ids import check_id

logger = logging.getLogger(__name__)

MAX_PAGE_BYTES = 20 * 1024 * 1024
"""Far above a long Wikipedia article (~2 MB of HTML); larger files are not pages."""
_DECLARED_CHARSET = re.compile(rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_WINDOWS_1252_CODECS = frozenset({"ascii", "iso8859-1"})
"""Browsers decode pages labelled us-ascii or iso-8859-1 as windows-1252 (WHATWG Encoding)."""
_BODY_START = re.compile(r"<body[\s>]", re.I)


@dataclass(frozen=True)
class _Page:
    """One HTML file found in pass 1, with what pass 2 needs to parse it."""

    path: Path
    doc_id: str
    url: str


_TITLE_OPEN = re.compile(r"<title\b[^>]*>", re.IGNORECASE)
_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
"""A start or end tag: inside a title's text it means the title was never closed."""


def read_html_pages(folder: Path, report: IngestReport, guard: ImageGuard) -> list[Document]:
    """Read every *.html/*.htm page under a folder into a document, resolving links between them.

    Pass 1 reads each page's doc id and canonical url so that pass 2 can resolve every
    link to a page of the folder; unreadable or empty pages are reported and skipped.

    Args:
        folder: The root folder; doc ids are page paths relative to it, without extension.
        report: Receives skipped pages, repairs (legacy encodings) and unresolved links.
        guard: Checks every image file a page refers to.

    Returns:
        The documents in path order.

    Raises:
        CorpusFormatError: When the folder does not exist.
    """
    pages = _collect_pages(folder, folder_files(folder, PAGE_SUFFIXES, ".html pages"), report)
    index = LinkIndex()
    for page in pages:
        owner = index.add(page.doc_id, page.url)
        if owner is not None:
            report.repair(
                str(page.path),
                f"canonical url {page.url!r} already belongs to "
                f"{owner!r}; absolute links to it resolve to {owner!r}",
            )
    documents = [doc for page in pages if (doc := _read_page(page, folder, index, report, guard))]
    logger.info("read %d of %d HTML pages from %s", len(documents), len(pages), folder)
    return documents


def decode_page(raw: bytes) -> tuple[str, str | None]:
    """Decode a page's bytes, honouring a BOM or a declared charset, and never fail.

    Returns:
        The text, and a note naming the encoding used when the bytes were not valid in the
        declared (or default UTF-8) encoding or the declared charset is unknown, else None.
    """
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return raw.decode(codec, errors="replace"), None
    candidates, failure, note = _candidate_codecs(raw)
    for codec in candidates:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        return text, f"{note}: decoded as {codec}" if note else None
    text, used = decode_legacy(raw)
    return text, f"{failure}: decoded as {used}"


def _candidate_codecs(raw: bytes) -> tuple[tuple[str, ...], str, str | None]:
    """Return the codecs to try, the problem if all fail, and a note to give even on success."""
    match = _DECLARED_CHARSET.search(raw[:4096])
    if match is None:
        return ("utf-8",), "not UTF-8", None
    label = match.group(1).decode("ascii").lower()
    try:
        codec = codecs.lookup(label).name
    except LookupError:
        unknown = f"unknown charset {label!r}"
        return ("utf-8",), f"{unknown} and not UTF-8", unknown
    if codec in _WINDOWS_1252_CODECS:
        return ("cp1252", "latin-1"), f"not valid {label}", None
    return (codec,), "not UTF-8" if codec == "utf-8" else f"not valid {label}", None


def decode_legacy(raw: bytes) -> tuple[str, str]:
    """Decode bytes valid in no declared encoding: windows-1252, else charset-normalizer's guess."""
    # windows-1252 first: charset detectors guess wrong on short Western pages ("café" -> cp1250).
    try:
        return raw.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        pass
    guess = charset_normalizer.from_bytes(raw).best()
    if guess is not None:
        return str(guess), guess.encoding
    return raw.decode("latin-1"), "iso-8859-1"


def _collect_pages(folder: Path, paths: list[Path], report: IngestReport) -> list[_Page]:
    pages: list[_Page] = []
    seen: dict[str, Path] = {}
    root = folder.resolve()
    for path in paths:
        relative = path.relative_to(folder)
        text = _load(path, root, report, note_repairs=True)
        if text is None:
            continue
        try:
            doc_id = check_id(relative.with_suffix("").as_posix(), "doc_id")
        except ValueError as err:
            report.skip(str(path), str(err))
            continue
        if doc_id in seen:
            report.skip(str(path), f"doc_id {doc_id!r} already taken by {seen[doc_id]}")
            continue
        seen[doc_id] = path
        # Pass 1 needs only the head: parsing up to <body> keeps it cheap.
        body = _BODY_START.search(text)
        head = _parse(text[: body.start()] if body else text)
        pages.append(_Page(path, doc_id, _canonical_url(head)))
    return pages


def _load(path: Path, root: Path, report: IngestReport, note_repairs: bool) -> str | None:
    """Return a page's decoded text, or None after reporting why it cannot be read."""
    where = str(path)
    if not path.is_file():
        report.skip(where, "not a regular file")
        return None
    if not path.resolve().is_relative_to(root):
        report.skip(where, f"links outside the corpus folder {root}")
        return None
    try:
        size = path.stat().st_size
        if size > MAX_PAGE_BYTES:
            report.skip(where, f"{size / 1e6:.1f} MB, over the {MAX_PAGE_BYTES / 1e6:.0f} MB limit")
            return None
        raw = path.read_bytes()
    except OSError as err:
        report.skip(where, f"unreadable ({type(err).__name__}: {err.strerror or err})")
        return None
    if b"\x00" in raw[:8192] and not raw.startswith(tuple(bom for bom, _ in _BOMS)):
        report.skip(where, "binary content (NUL bytes), not an HTML page")
        return None
    text, note = decode_page(raw)
    if note is not None and note_repairs:
        report.repair(where, note)
    return text


def _canonical_url(soup: BeautifulSoup) -> str:
    for link in soup.find_all("link", href=True):
        rel = link.get("rel")
        values = [str(value) for value in rel] if isinstance(rel, list) else str(rel).split()
        if "canonical" in (value.lower() for value in values):
            return str(link["href"]).strip()
    meta = soup.find("meta", attrs={"property": "og:url", "content": True})
    return str(meta["content"]).strip() if isinstance(meta, Tag) else ""


def _read_page(
    page: _Page, folder: Path, index: LinkIndex, report: IngestReport, guard: ImageGuard
) -> Document | None:
    text = _load(page.path, folder.resolve(), report, note_repairs=False)
    if text is None:
        return None
    soup = _parse(text)
    if _swallowed_markup(soup):
        text = _close_title(text)
        soup = _parse(text)
        report.repair(str(page.path), "unclosed <title> swallowed the page; closed it")
    title = _title(soup) or page.doc_id
    walker = ComponentWalker(page.path, page.doc_id, folder, index, report, guard)
    try:
        components = walker.read(soup.body or soup)
    except RecursionError:
        report.skip(str(page.path), "elements nested too deeply to read")
        return None
    if not components:
        report.skip(str(page.path), "empty document: no paragraph, table or image in <body>")
        return None
    return Document(page.doc_id, title, page.url, components, source=str(page.path))


def _parse(text: str) -> BeautifulSoup:
    with warnings.catch_warnings():
        # XHTML pages (<?xml ...?> prologue) are HTML; lxml's HTML parser reads them fine.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(text, "lxml")


def _swallowed_markup(soup: BeautifulSoup) -> bool:
    """Return whether an unclosed <title> ran on: it holds tags and the body is empty.

    (A title that only mentions a tag, "Using <div>", leaves the body its content.)
    """
    title = soup.title
    if not isinstance(title, Tag) or _TAG.search(title.get_text()) is None:
        return False
    return soup.body is None or not soup.body.get_text(strip=True)


def _close_title(text: str) -> str:
    """Return the page with `</title>` inserted before the first tag after `<title>`."""
    opening = _TITLE_OPEN.search(text)
    if opening is None:
        return text
    after = _TAG.search(text, opening.end())
    at = after.start() if after else len(text)
    return f"{text[:at]}</title>{text[at:]}"


def _title(soup: BeautifulSoup) -> str:
    for tag in (soup.title, soup.find("h1")):
        if isinstance(tag, Tag) and (text := element_text(tag)):
            return text
    return ""
