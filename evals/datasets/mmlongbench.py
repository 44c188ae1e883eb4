"""MMLongBench-Doc: long PDFs (reports, papers, slides, scans), questions with evidence pages.

Upstream layout (mayubo2333/MMLongBench-Doc `data/`): `samples.json` (a JSON list of
questions: `doc_id` = the PDF's file name, `question`, `answer`, `answer_format`,
`evidence_sources` and `evidence_pages` as strings holding Python lists) and `documents/`
(the PDFs). `evidence_pages` counts from 1; `evidence_pages_zero_indexed`, when present, is
used as is. An optional `mmdocir_layouts.jsonl` (MMDocIR's annotations: per question
`layout_mapping` boxes in PDF points, top-left origin, zero-indexed pages) gives region gold.

`qid` = "mmlb-" + the first 12 hex digits of sha1(doc_id + newline + question): stable across
re-conversions and independent of file order. Gold pages are "DOC#PAGE" (DOC = the file
name without `.pdf`); gold components are derived from them (evals.datasets.pdf_bundle).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from corpus_builder.pdf_ingest import pdf_files
from corpus_builder.pdf_ocr import OCR_CACHE, OcrOptions
from evals.datasets.bundle import ConversionReport, finish
from evals.datasets.job import ConversionJob
from evals.datasets.pdf_bundle import covering, pdf_corpus
from evals.datasets.raw import (
    ProblemLog,
    find_optional_file,
    find_raw_dir,
    find_raw_file,
    iter_jsonl,
    load_json,
)
from state.corpus import Document
from state.ids import page_key
from tools.errors import DatasetFormatError

DATASET = "mmlongbench"
QUESTION_FILES = ("samples.json", "data/samples.json")
LAYOUT_FILES = ("mmdocir_layouts.jsonl", "MMDocIR_annotations.jsonl")
PDF_FOLDERS = ("documents", "data/documents")
SOURCES = {
    "pure-text": "text",
    "generalized-text": "layout",
    "table": "table",
    "chart": "chart",
    "figure": "figure",
}
"""Upstream evidence source names (lowercased prefixes) and the short labels metrics group by:
"Pure-text (Plain-text)" is text, "Generalized-text (Layout)" is layout."""


def question_id(doc_id: str, question: str) -> str:
    """Return the bundle's qid of a question: "mmlb-" + sha1(doc_id + newline + question)[:12]."""
    digest = hashlib.sha1(f"{doc_id}\n{question}".encode()).hexdigest()
    return f"mmlb-{digest[:12]}"


def convert(job: ConversionJob, *, ocr: bool = True) -> ConversionReport:
    """Convert MMLongBench-Doc's questions and PDFs into a bundle in job.out_dir.

    Args:
        job: raw_dir holds `samples.json`, `documents/` and optionally the MMDocIR layouts;
            OCR output is cached in out_dir's `ocr-cache/`; split is only a label for the
            stats; images_dir is unused (regions are read from the PDFs).
        ocr: OCR pages without a text layer and raster regions (when Tesseract is installed).

    Raises:
        ConfigError: If limit < 1.
        DatasetFormatError: If a raw file or the PDF folder is missing, or no question is usable.
    """
    job.check(DATASET)
    problems = ProblemLog()
    samples = load_json(find_raw_file(job.raw_dir, QUESTION_FILES, "MMLongBench-Doc samples.json"))
    if not isinstance(samples, list):
        raise DatasetFormatError(
            f"{job.raw_dir}: samples.json is not a JSON list; download it again"
        )
    pdf_dir = find_raw_dir(job.raw_dir, PDF_FOLDERS, "MMLongBench-Doc documents")
    layouts = _layouts(job.raw_dir, problems)
    ocr_options = OcrOptions(job.out_dir / OCR_CACHE, enabled=ocr)
    documents, stats, draft = pdf_corpus(pdf_dir, job.out_dir, problems, ocr=ocr_options)
    by_id = {document.doc_id: document for document in documents}
    present = {path.stem for path in pdf_files(pdf_dir)}
    questions: list[dict[str, Any]] = []
    for index, record in enumerate(samples):
        if job.limit is not None and len(questions) >= job.limit:
            break
        where = f"samples.json[{index}]"
        found = _question(where, record, by_id, layouts, problems, present)
        if found is not None:
            questions.append(found)
    stats["textless_pages"] = sum(len(d.textless_pages) for d in documents)
    return finish(job, draft, questions, dataset=DATASET, problems=problems, extra_stats=stats)


def _layouts(raw_dir: Path, problems: ProblemLog) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Return MMDocIR's region boxes by (doc stem, question), if the file is there."""
    path = find_optional_file(
        raw_dir, LAYOUT_FILES, "MMDocIR layout file", "questions get no gold_regions"
    )
    if path is None:
        return {}
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _, record in iter_jsonl(path, problems):
        doc = _stem(str(record.get("doc_name", "")))
        for item in record.get("questions") or []:
            if isinstance(item, dict) and isinstance(item.get("Q"), str):
                found[(doc, item["Q"])] = _regions(doc, item.get("layout_mapping"))
    return found


def _regions(doc: str, mapping: object) -> list[dict[str, Any]]:
    regions = []
    for box in mapping if isinstance(mapping, list) else []:
        try:
            bbox = [float(v) for v in box["bbox"]]
            region = {"doc": doc, "page": int(box["page"]), "bbox": bbox}
        except (KeyError, TypeError, ValueError):
            continue
        if len(bbox) == 4:
            regions.append(region)
    return regions


def _stem(doc_id: str) -> str:
    return doc_id[:-4] if doc_id.lower().endswith(".pdf") else doc_id


def _question(
    where: str,
    record: object,
    documents: Mapping[str, Document],
    layouts: Mapping[tuple[str, str], list[dict[str, Any]]],
    problems: ProblemLog,
    present: set[str],
) -> dict[str, Any] | None:
    if not isinstance(record, dict):
        problems.add("bad_raw_record", f"{where}: not a JSON object; skipped")
        return None
    doc_id, text = record.get("doc_id"), record.get("question")
    if not isinstance(doc_id, str) or not isinstance(text, str) or not text.strip():
        problems.add("bad_raw_record", f"{where}: no doc_id or question; skipped")
        return None
    qid, doc = question_id(doc_id, text), _stem(doc_id)
    document = documents.get(doc)
    if document is None:
        kind, why = ("pdf_skipped", "unreadable") if doc in present else ("pdf_missing", "absent")
        problems.add(kind, f"{where} ({qid}): PDF {doc_id} {why}; question skipped")
        return None
    pages = [p for p in _evidence_pages(record) if 0 <= p < document.page_count]
    gold = [cid for page in pages for cid in covering(document, page)]
    if not gold:
        problems.add("no_gold", f"{where} ({qid}): no component on evidence pages {pages}")
        return None
    sources = _sources(record.get("evidence_sources"))
    return {
        "qid": qid,
        "question": text,
        "answers": [str(record.get("answer", ""))],
        "gold_components": list(dict.fromkeys(gold)),
        "gold_pages": [page_key(doc, page) for page in pages],
        "gold_regions": layouts.get((doc, text), []),
        "question_docs": [doc],
        "modalities": sorted({label for s in sources if (label := source_label(s))}),
        "evidence_sources": sources,
        "answer_format": record.get("answer_format"),
        "doc_type": record.get("doc_type"),
        "textless_evidence": all(page in document.textless_pages for page in pages),
    }


def _evidence_pages(record: Mapping[str, Any]) -> list[int]:
    """Return the zero-indexed evidence pages: the added field, else upstream's 1-indexed one."""
    zero = record.get("evidence_pages_zero_indexed")
    if isinstance(zero, list):
        values = zero
    else:
        values = [p - 1 for p in _literal_list(record.get("evidence_pages")) if isinstance(p, int)]
    return list(dict.fromkeys(v for v in values if isinstance(v, int)))


def _sources(raw: object) -> list[str]:
    """Return the evidence source names from upstream's stringified list."""
    return [s.strip() for s in _literal_list(raw) if isinstance(s, str) and s.strip()]


def source_label(name: str) -> str | None:
    """Return the short label (text, layout, table, chart, figure) of an evidence source."""
    lowered = name.strip().lower()
    return next((label for key, label in SOURCES.items() if lowered.startswith(key)), None)


def _literal_list(raw: object) -> list[Any]:
    """Return a list given as a list or as its Python/JSON text ("[3, 5]"); [] otherwise."""
    if isinstance(raw, list):
        return raw
    if not isinstance(raw, str):
        return []
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return []
    return list(value) if isinstance(value, list | tuple) else []
