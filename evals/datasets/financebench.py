"""FinanceBench: SEC filings and earnings releases as PDFs, questions with evidence pages.

Upstream layout (patronus-ai/financebench `data/`): `financebench_open_source.jsonl`
(questions), `financebench_document_information.jsonl` (one line per filing) and `pdfs/`
(`<doc_name>.pdf`). Every PDF of `pdfs/` is ingested exactly as `fif build RAW/pdfs` would,
so a bundle and a direct build hold the same documents; the bundle keeps a copy of each PDF
(`files/<doc_id>.pdf`, the document's `source_file`) so its pages can be shown.

`gold_pages` are upstream's evidence pages as "DOC#PAGE", zero-indexed as upstream counts.
`gold_components` are DERIVED: the components of the evidence document whose page span
covers an evidence page; they are as good as the page spans, and a page read as several
components makes all of them gold.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, finish
from evals.datasets.job import ConversionJob
from evals.datasets.pdf_bundle import covering, pdf_corpus
from evals.datasets.raw import (
    ProblemLog,
    find_optional_file,
    find_raw_dir,
    find_raw_file,
    iter_jsonl,
)
from state.corpus import Document
from state.ids import page_key

DATASET = "financebench"
QUESTION_FILES = ("financebench_open_source.jsonl", "data/financebench_open_source.jsonl")
DOCUMENT_FILES = (
    "financebench_document_information.jsonl",
    "data/financebench_document_information.jsonl",
)
PDF_FOLDERS = ("pdfs", "data/pdfs")
"""The bundle's folder of source PDFs (`source_file` of each document)."""


def convert(job: ConversionJob) -> ConversionReport:
    """Convert FinanceBench's questions and PDFs into a bundle in job.out_dir.

    Args:
        job: raw_dir holds the two JSONL files and `pdfs/`; split is only a label for the
            stats (FinanceBench publishes one open-source sample); images_dir is unused (PDF
            figures are kept as captions).

    Raises:
        ConfigError: If limit < 1.
        DatasetFormatError: If a raw file or the PDF folder is missing, or no question is usable.
    """
    job.check(DATASET)
    problems = ProblemLog()
    question_file = find_raw_file(job.raw_dir, QUESTION_FILES, "FinanceBench question file")
    pdf_dir = find_raw_dir(job.raw_dir, PDF_FOLDERS, "FinanceBench PDF")
    info = _document_info(job.raw_dir, problems)
    urls = {doc: str(meta.get("doc_link", "")) for doc, meta in info.items()}
    documents, stats, draft = pdf_corpus(pdf_dir, job.out_dir, problems, urls=urls)
    records = iter_jsonl(question_file, problems)
    questions = list(_questions(records, documents, problems, job.limit))
    return finish(job, draft, questions, dataset=DATASET, problems=problems, extra_stats=stats)


def _document_info(raw_dir: Path, problems: ProblemLog) -> dict[str, dict[str, Any]]:
    """Return upstream's document table by doc_name (company, type, period), if present."""
    without = "documents get no company/period metadata"
    path = find_optional_file(raw_dir, DOCUMENT_FILES, "FinanceBench document table", without)
    if path is None:
        return {}
    return {
        str(record["doc_name"]): record
        for _, record in iter_jsonl(path, problems)
        if isinstance(record.get("doc_name"), str)
    }


def _questions(
    records: Iterator[tuple[str, dict[str, Any]]],
    documents: list[Document],
    problems: ProblemLog,
    limit: int | None,
) -> Iterator[dict[str, Any]]:
    by_id = {document.doc_id: document for document in documents}
    kept = 0
    for where, record in records:
        if limit is not None and kept >= limit:
            return
        question = _question(where, record, by_id, problems)
        if question is not None:
            kept += 1
            yield question


def _question(
    where: str, record: dict[str, Any], documents: Mapping[str, Document], problems: ProblemLog
) -> dict[str, Any] | None:
    qid, text = record.get("financebench_id"), record.get("question")
    if not isinstance(qid, str) or not isinstance(text, str):
        problems.add("bad_raw_record", f"{where}: no financebench_id or question; skipped")
        return None
    evidence = [e for e in record.get("evidence") or [] if isinstance(e, dict)]
    docs = list(dict.fromkeys([str(record.get("doc_name", "")), *_evidence_docs(evidence)]))
    missing = [doc for doc in docs if doc and doc not in documents]
    if missing:
        problems.add("pdf_missing", f"{where} ({qid}): no PDF for {missing}; question skipped")
        return None
    pages = _gold_pages(evidence)
    gold = [cid for doc, page in pages for cid in covering(documents[doc], page)]
    if not gold:
        problems.add("no_gold", f"{where} ({qid}): no component covers {pages}; skipped")
        return None
    return {
        "qid": qid,
        "question": text,
        "answers": [str(record.get("answer", ""))],
        "gold_components": gold,
        "gold_pages": [page_key(doc, page) for doc, page in pages],
        "question_docs": [d for d in docs if d],
        "question_type": record.get("question_type"),
        "justification": record.get("justification"),
    }


def _evidence_docs(evidence: list[dict[str, Any]]) -> list[str]:
    return [str(e["doc_name"]) for e in evidence if e.get("doc_name")]


def _gold_pages(evidence: list[dict[str, Any]]) -> list[tuple[str, int]]:
    pages = []
    for item in evidence:
        try:
            pages.append((str(item["doc_name"]), int(item["evidence_page_num"])))
        except (KeyError, TypeError, ValueError):
            continue
    return list(dict.fromkeys(pages))
