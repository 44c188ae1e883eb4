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

import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, finish
from evals.datasets.images import ImageCopier
from evals.datasets.pdf_bundle import copy_sources, covering, pdf_draft, read_pdf_folder
from evals.datasets.raw import (
    ProblemLog,
    check_split_and_limit,
    find_raw_dir,
    find_raw_file,
    iter_jsonl,
)
from state.corpus import Document
from state.ids import page_key
from tools.errors import DatasetFormatError

logger = logging.getLogger(__name__)

DATASET = "financebench"
QUESTION_FILES = ("financebench_open_source.jsonl", "data/financebench_open_source.jsonl")
DOCUMENT_FILES = (
    "financebench_document_information.jsonl",
    "data/financebench_document_information.jsonl",
)
PDF_FOLDERS = ("pdfs", "data/pdfs")
"""The bundle's folder of source PDFs (`source_file` of each document)."""


def convert(
    raw_dir: Path,
    out_dir: Path,
    *,
    split: str = "dev",
    limit: int | None = None,
    images_dir: Path | None = None,
) -> ConversionReport:
    """Convert FinanceBench's questions and PDFs into a bundle in out_dir.

    Args:
        raw_dir: Folder with the two JSONL files and `pdfs/`.
        out_dir: Bundle folder to write.
        split: A label for the stats; FinanceBench publishes one open-source sample.
        limit: Convert only the first `limit` usable questions, in file order.
        images_dir: Unused (PDF figures are kept as captions).

    Raises:
        ConfigError: If limit < 1.
        DatasetFormatError: If a raw file or the PDF folder is missing, or no question is usable.
    """
    check_split_and_limit(DATASET, split, None, limit)
    problems = ProblemLog()
    question_file = find_raw_file(raw_dir, QUESTION_FILES, "FinanceBench question file")
    pdf_dir = find_raw_dir(raw_dir, PDF_FOLDERS, "FinanceBench PDF")
    info = _document_info(raw_dir, problems)
    documents, stats = read_pdf_folder(pdf_dir, problems)
    urls = {doc: str(meta.get("doc_link", "")) for doc, meta in info.items()}
    draft = pdf_draft(documents, urls, copy_sources(documents, out_dir))
    questions = list(_questions(iter_jsonl(question_file, problems), documents, problems, limit))
    images = ImageCopier(out_dir, None, problems)
    return finish(
        draft, questions, out_dir, dataset=DATASET, split=split, problems=problems,
        images=images, extra_stats=stats,
    )  # fmt: skip


def _document_info(raw_dir: Path, problems: ProblemLog) -> dict[str, dict[str, Any]]:
    """Return upstream's document table by doc_name (company, type, period), if present."""
    try:
        path = find_raw_file(raw_dir, DOCUMENT_FILES, "FinanceBench document table")
    except DatasetFormatError as err:  # the table only adds metadata: say so and go on
        logger.warning("%s; documents get no company/period metadata", err)
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
