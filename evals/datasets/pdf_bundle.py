"""What the PDF benchmarks' adapters share: read a folder of PDFs, draft its bundle, find gold.

FinanceBench and MMLongBench-Doc both publish PDFs with questions whose gold is evidence
pages. Their PDFs are ingested exactly as `fif build FOLDER` would, and the gold components
are DERIVED: the components whose page span covers an evidence page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from corpus_builder.bundle_write import component_record
from corpus_builder.pdf_ingest import pdf_files, read_pdfs
from corpus_builder.pdf_ocr import OcrOptions
from evals.datasets.bundle import CorpusDraft
from evals.datasets.raw import ProblemLog
from state.corpus import Document, IngestReport


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


def pdf_draft(documents: Iterable[Document], urls: Mapping[str, str] | None = None) -> CorpusDraft:
    """Return the bundle draft of PDF documents, their layout fields kept."""
    draft = CorpusDraft()
    for document in documents:
        record = draft.document(document.doc_id, document.title, (urls or {}).get(document.doc_id))
        if document.facts:
            record["facts"] = list(document.facts)
        record["page_count"] = document.page_count
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
