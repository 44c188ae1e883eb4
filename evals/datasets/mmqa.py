"""Convert MultimodalQA (allenai/multimodalqa) from its published files into a bundle.

Questions (`MMQA_<split>.jsonl.gz`, one per line): `qid`, `question`, `answers: [{answer,
modality, ...}]`, `supporting_context: [{doc_id, doc_part}]` (ids of texts/tables/images items)
and `metadata: {type, modalities, text_doc_ids, image_doc_ids, table_id, ...}`. `hops` counts the
single-modality sub-questions in `metadata.type` (TextQ: 1, Compose(TableQ,TextQ): 2,
Compare(Compose(TableQ,ImageQ),TableQ): 3).
With a limit, the corpus holds the pages of the chosen questions' context items (gold and
distractors) plus the pages their tables link to; without one, every page of the collections.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, CorpusDraft, finish
from evals.datasets.images import ImageCopier
from evals.datasets.mmqa_collections import Collections, load_pages, select_pages
from evals.datasets.raw import (
    ProblemLog,
    check_split_and_limit,
    dict_field,
    find_raw_file,
    iter_jsonl,
    list_field,
    str_field,
)

logger = logging.getLogger(__name__)

SPLITS = ("dev", "train")
PART_KINDS = {"text": "paragraph", "table": "table", "image": "image"}
"""MMQA's `doc_part` values and the component type they point to."""
ANSWER_SOURCES = {"text": "passage", "table": "table", "image": "image"}
"""Answer modality -> answer_source, in the OTT-QA bundle's words."""
_SUB_QUESTION = re.compile(r"\b(?:TextQ|TableQ|ImageQ|ImageListQ)\b")


def convert(
    raw_dir: Path,
    out_dir: Path,
    *,
    split: str = "dev",
    limit: int | None = None,
    images_dir: Path | None = None,
) -> ConversionReport:
    """Convert one MMQA split into a bundle in out_dir.

    Args:
        raw_dir: Folder with MMQA_<split>.jsonl.gz and the texts/tables/images collections.
        out_dir: Bundle folder to write (corpus.jsonl, questions.jsonl, stats.json, images/).
        split: dev or train (the test split has no gold labels).
        limit: Convert only the first `limit` usable questions, with a matching corpus.
        images_dir: Folder holding the images' `path` files (or final_dataset_images/).

    Raises:
        ConfigError: If the split is not one with gold labels, or limit < 1.
        DatasetFormatError: If a raw file is missing or unreadable, or no question converts.
    """
    check_split_and_limit("MMQA", split, SPLITS, limit, "the test split has no gold labels")
    problems = ProblemLog()
    names = [f"MMQA_{split}.jsonl.gz", f"MMQA_{split}.jsonl", f"MultiModalQA_{split}.jsonl.gz"]
    question_file = find_raw_file(raw_dir, names, f"MMQA {split} questions")
    collections = Collections.locate(raw_dir)
    raw_questions = _read_questions(question_file, limit, problems)
    pages = None if limit is None else select_pages(collections, _context_ids(raw_questions))
    draft = CorpusDraft()
    images = ImageCopier(out_dir, images_dir, problems)
    load_pages(collections, draft, pages, images, problems)
    questions = [
        q
        for q in (_question(raw, where, draft, problems) for where, raw in raw_questions)
        if q is not None
    ]
    extra = {
        "source": {"repo": "allenai/multimodalqa", "questions": question_file.name},
        "limit": limit,
    }
    return finish(
        draft,
        questions,
        out_dir,
        dataset="mmqa",
        split=split,
        problems=problems,
        images=images,
        extra_stats=extra,
    )


def _read_questions(
    path: Path, limit: int | None, problems: ProblemLog
) -> list[tuple[str, dict[str, Any]]]:
    """Return the first `limit` question records that have a qid, a question and gold context."""
    kept: list[tuple[str, dict[str, Any]]] = []
    for where, record in iter_jsonl(path, problems):
        context = record.get("supporting_context")
        if not isinstance(record.get("qid"), str) or not isinstance(record.get("question"), str):
            problems.add(
                "bad_raw_record", f"{where}: question without a string 'qid' or 'question'; skipped"
            )
        elif not isinstance(context, list) or not context:
            problems.add(
                "no_gold",
                f"{where}: question {record['qid']!r} has no 'supporting_context'; skipped",
            )
        else:
            kept.append((where, record))
            if limit is not None and len(kept) >= limit:
                break
    return kept


def _context_ids(raw_questions: list[tuple[str, dict[str, Any]]]) -> set[str]:
    """Return the MMQA item ids of every question's gold and distractor context."""
    ids: set[str] = set()
    for _, record in raw_questions:
        meta = dict_field(record, "metadata")
        for key in ("text_doc_ids", "image_doc_ids"):
            ids.update(i for i in list_field(meta, key) if isinstance(i, str))
        ids.update(
            str_field(c, "doc_id") or ""
            for c in record["supporting_context"]
            if isinstance(c, dict)
        )
        ids.add(str_field(meta, "table_id") or "")
    ids.discard("")
    return ids


def answer_strings(answers: object) -> list[str]:
    """Return the answer texts of MMQA-style answer objects (numbers become strings)."""
    texts = []
    for answer in answers if isinstance(answers, list) else []:
        value = answer.get("answer") if isinstance(answer, dict) else answer
        if value is not None and str(value).strip():
            texts.append(str(value).strip())
    return texts


def answer_source(answers: object) -> str | None:
    """Return passage/table/image for the first answer's modality, if it has one."""
    if isinstance(answers, list) and answers and isinstance(answers[0], dict):
        return ANSWER_SOURCES.get(str(answers[0].get("modality")))
    return None


def _question(
    record: dict[str, Any], where: str, draft: CorpusDraft, problems: ProblemLog
) -> dict[str, Any] | None:
    qid = record["qid"]
    gold: list[str] = []
    for part in record["supporting_context"]:
        cid = None
        if isinstance(part, dict) and str(part.get("doc_part")) in PART_KINDS:
            cid = draft.lookup(PART_KINDS[str(part["doc_part"])], str(part.get("doc_id")))
        if cid is None:
            problems.add(
                "gold_not_in_corpus",
                f"{where}: question {qid!r}: supporting context "
                f"{part!r} is not an item of the collections; question skipped",
            )
            return None
        gold.append(cid)
    meta = dict_field(record, "metadata")
    qtype = str_field(meta, "type") or ""
    return {
        "qid": qid,
        "question": record["question"],
        "answers": answer_strings(record.get("answers")),
        "gold_components": gold,
        "hops": len(_SUB_QUESTION.findall(qtype)) or None,
        "modalities": sorted({m for m in list_field(meta, "modalities") if isinstance(m, str)}),
        "answer_source": answer_source(record.get("answers")),
        "question_type": qtype or None,
    }
