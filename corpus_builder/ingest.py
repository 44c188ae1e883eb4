"""Recognise a corpus (bundle, HTML pages, PDFs, image folder), read it, drop duplicates, hash it.

A folder of HTML pages may hold PDFs too: both are read (kind "html"); a PDF file or a
folder of PDFs alone is kind "pdf".
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from corpus_builder.bundle import read_bundle
from corpus_builder.images import ImageGuard
from corpus_builder.pdf_ingest import PDF_SUFFIX, pdf_files, read_pdfs
from corpus_builder.pdf_ocr import OcrOptions
from corpus_builder.pdf_pages import PdfLimits
from state.corpus import Document, IngestReport
from tools.errors import CorpusFormatError
from tools.manifest import CorpusInfo

logger = logging.getLogger(__name__)

HTML_SUFFIXES = {".html", ".htm"}
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp", ".tif", ".tiff"}
PdfReader = Callable[
    [Sequence[Path], IngestReport, PdfLimits | None, OcrOptions | None], list[Document]
]
"""How a corpus's PDF files are read: `read_pdfs` in this process, or spread over Ray."""


def corpus_kind(corpus: Path) -> str:
    """Return 'bundle', 'html', 'pdf' or 'images' for a corpus path, or raise CorpusFormatError."""
    if corpus.is_file() and corpus.suffix == ".jsonl":
        return "bundle"
    if corpus.is_file() and corpus.suffix.lower() == PDF_SUFFIX:
        return "pdf"
    if not corpus.exists():
        raise CorpusFormatError(
            f"{corpus}: no such file or folder; check the path (a bundle folder, a "
            "corpus.jsonl, a PDF, or a folder of HTML pages, PDFs or images)"
        )
    if not corpus.is_dir():
        raise CorpusFormatError(
            f"{corpus}: not a folder, a .jsonl or a .pdf file; give a bundle folder "
            "(with corpus.jsonl), a PDF, or a folder of HTML pages, PDFs or images"
        )
    if (corpus / "corpus.jsonl").is_file():
        return "bundle"
    files = [p for p in corpus.rglob("*") if p.is_file()]
    if any(p.suffix.lower() in HTML_SUFFIXES for p in files):
        return "html"
    if any(p.suffix.lower() == PDF_SUFFIX for p in files):
        return "pdf"
    if any(p.suffix.lower() in IMAGE_SUFFIXES for p in files):
        return "images"
    raise CorpusFormatError(f"{corpus}: found no corpus.jsonl, HTML pages, PDFs or images")


def read_corpus(
    corpus: Path,
    report: IngestReport,
    pdf_limits: PdfLimits | None = None,
    ocr: OcrOptions | None = None,
    pdf_reader: PdfReader = read_pdfs,
) -> tuple[str, list[Document]]:
    """Read every document of a corpus; bad inputs are reported, duplicates dropped.

    `ocr` reads PDF pages without a text layer (corpus_builder.pdf_ocr); bundles were read
    when they were converted. `pdf_reader` reads the PDF files (corpus_builder.ray_parse
    has one that spreads them over Ray).
    """
    kind = corpus_kind(corpus)
    root = corpus.parent if corpus.is_file() else corpus
    guard = ImageGuard(root)
    if kind == "bundle":
        bundle_file = corpus if corpus.is_file() else corpus / "corpus.jsonl"
        documents = list(read_bundle(bundle_file, report, guard))
    elif kind == "html":
        from corpus_builder.html_pages import read_html_pages

        documents = read_html_pages(corpus, report, guard)
        documents += pdf_reader(pdf_files(corpus), report, pdf_limits, ocr)
    elif kind == "pdf":
        documents = pdf_reader(pdf_files(corpus), report, pdf_limits, ocr)
    else:
        from corpus_builder.image_folder import read_image_folder

        documents = read_image_folder(corpus, report, guard)
    documents = drop_duplicates(documents, report)
    report.documents = len(documents)
    report.components = sum(len(d.components) for d in documents)
    return kind, documents


def drop_duplicates(documents: list[Document], report: IngestReport) -> list[Document]:
    """Keep the first document per doc_id and the first component per component_id."""
    seen_docs: dict[str, str] = {}
    seen_components: dict[str, str] = {}
    kept = []
    for document in documents:
        if document.doc_id in seen_docs:
            report.skip(
                document.source or document.doc_id,
                f"duplicate doc_id {document.doc_id!r} (first at {seen_docs[document.doc_id]})",
            )
            continue
        seen_docs[document.doc_id] = document.source or document.doc_id
        components = []
        for component in document.components:
            first = seen_components.get(component.component_id)
            if first is not None:
                report.skip(
                    f"{document.source} ({component.component_id})",
                    f"duplicate component_id (first in {first})",
                )
                continue
            seen_components[component.component_id] = document.source or document.doc_id
            components.append(component)
        if not components:
            report.skip(
                document.source or document.doc_id, "empty document after dropping duplicates"
            )
            continue
        if len(components) != len(document.components):
            document = replace(document, components=tuple(components))
        kept.append(document)
    return kept


def corpus_info(corpus: Path, kind: str) -> CorpusInfo:
    """Hash the corpus files (names and bytes) so an unchanged corpus is recognised."""
    files = [corpus] if corpus.is_file() else sorted(p for p in corpus.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    total = 0
    for path in files:
        digest.update(str(path.relative_to(corpus.parent if corpus.is_file() else corpus)).encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
                total += len(block)
    return CorpusInfo(
        path=str(corpus.resolve()),
        kind=kind,  # type: ignore[arg-type]
        sha256=digest.hexdigest(),
        files=len(files),
        bytes=total,
    )
