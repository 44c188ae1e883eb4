"""What the PDF benchmarks' adapters share: read a folder of PDFs, draft its bundle, find gold.

FinanceBench and MMLongBench-Doc both publish PDFs with questions whose gold is evidence
pages. Their PDFs are ingested exactly as `fif build FOLDER` would, and the gold components
are DERIVED: the components whose page span covers an evidence page.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from corpus_builder.bundle_write import component_record
from corpus_builder.pdf_ingest import pdf_files, read_pdfs
from corpus_builder.pdf_ocr import OcrOptions
from evals.datasets.bundle import CorpusDraft
from evals.datasets.raw import ProblemLog
from state.corpus import Document, IngestReport


def pdf_corpus(
    pdf_dir: Path,
    out_dir: Path,
    problems: ProblemLog,
    *,
    urls: Mapping[str, str] | None = None,
    ocr: OcrOptions | None = None,
) -> tuple[list[Document], dict[str, Any], CorpusDraft]:
    """Read a folder of PDFs and draft their bundle, each document with a copy of its PDF.

    Args:
        pdf_dir: The benchmark's folder of PDFs.
        out_dir: The bundle folder (the PDFs are copied to its `files/`).
        problems: Receives the unreadable PDFs.
        urls: Each document's upstream link, by doc id, where the benchmark gives one.
        ocr: How to OCR pages without a text layer (None: the ingest default).

    Returns:
        The documents, the stats `read_pdf_folder` gives, and the draft.
    """
    documents, stats = read_pdf_folder(pdf_dir, problems, ocr)
    return documents, stats, pdf_draft(documents, urls, copy_sources(documents, out_dir))


def read_pdf_folder(
    pdf_dir: Path, problems: ProblemLog, ocr: OcrOptions | None = None
) -> tuple[list[Document], dict[str, Any]]:
    """Read every PDF of a folder; unreadable files become `pdf_unreadable` problems.

    Returns:
        The documents, and the stats a bundle records about them (pages, skips, repairs).
    """
    report = IngestReport()
    documents = read_pdfs(pdf_files(pdf_dir), report, None, ocr)
    for item in report.skipped:
        problems.add("pdf_unreadable", f"{item.where}: {item.problem}; its questions are skipped")
    stats = {
        "pdf_pages": sum(d.page_count for d in documents),
        "pdfs_skipped": len(report.skipped),
        "pdf_repairs": [f"{r.where}: {r.problem}" for r in report.repaired],
        "ocr": report.ocr,
    }
    return documents, stats


SOURCE_FOLDER = "files"
"""Bundle folder holding the documents' source files (their PDFs)."""


def copy_sources(documents: Iterable[Document], out_dir: Path) -> dict[str, str]:
    """Copy each document's PDF into the bundle (`files/`); return doc id → bundle path.

    The bundle then carries the files its page spans refer to, so an index built from it
    can render pages, wherever the raw download went.
    """
    folder = out_dir / SOURCE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    copied = {}
    for document in documents:
        source = Path(document.source)
        target = folder / f"{document.doc_id}{source.suffix.lower()}"
        if not target.is_file() or target.stat().st_size != source.stat().st_size:
            shutil.copyfile(source, target)
        copied[document.doc_id] = target.relative_to(out_dir).as_posix()
    return copied


def pdf_draft(
    documents: Iterable[Document],
    urls: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> CorpusDraft:
    """Return the bundle draft of PDF documents, their layout, filing and source kept."""
    draft = CorpusDraft()
    for document in documents:
        record = draft.document(document.doc_id, document.title, (urls or {}).get(document.doc_id))
        if sources and document.doc_id in sources:
            record["source_file"] = sources[document.doc_id]
        if document.facts:
            record["facts"] = list(document.facts)
        record["page_count"] = document.page_count
        if document.filing:
            record["filing"] = dict(document.filing)
        if document.textless_pages:
            record["textless_pages"] = list(document.textless_pages)
        for component in document.components:
            fields = component_record(component)
            cid, kind = fields.pop("component_id"), fields.pop("type")
            draft.add(document.doc_id, kind, fields, cid=cid)
    return draft


def covering(document: Document, page: int) -> list[str]:
    """Return the ids of a document's components whose page span covers a page."""
    return [
        component.component_id
        for component in document.components
        if component.pages is not None and component.pages[0] <= page <= component.pages[1]
    ]
