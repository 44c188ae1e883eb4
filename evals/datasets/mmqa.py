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

import re
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, CorpusDraft, finish
from evals.datasets.job import ConversionJob
from evals.datasets.mmqa_collections import Collections, load_corpus
from evals.datasets.raw import (
    ProblemLog,
    dict_field,
    find_raw_file,
    iter_jsonl,
    list_field,
    str_field,
)

SPLITS = ("dev", "train")
PART_KINDS = {"text": "paragraph", "table": "table", "image": "image"}
"""MMQA's `doc_part` values and the component type they point to."""
ANSWER_SOURCES = {"text": "passage", "table": "table", "image": "image"}
"""Answer modality -> answer_source, in the OTT-QA bundle's words."""
_SUB_QUESTION = re.compile(r"\b(?:TextQ|TableQ|ImageQ|ImageListQ)\b")


def convert(job: ConversionJob) -> ConversionReport:
    """Convert one MMQA split into a bundle in job.out_dir.

    Args:
        job: raw_dir holds MMQA_<split>.jsonl.gz and the texts/tables/images collections;
            split is dev or train (the test split has no gold labels); with a limit the corpus
            matches the questions kept; images_dir holds the images' `path` files (or
            final_dataset_images/).

    Raises:
        ConfigError: If the split is not one with gold labels, or limit < 1.
        DatasetFormatError: If a raw file is missing or unreadable, or no question converts.
    """
    job.check("MMQA", SPLITS, "the test split has no gold labels")
    problems = ProblemLog()
    split = job.split
    names = [f"MMQA_{split}.jsonl.gz", f"MMQA_{split}.jsonl", f"MultiModalQA_{split}.jsonl.gz"]
    question_file = find_raw_file(job.raw_dir, names, f"MMQA {split} questions")
    collections = Collections.locate(job.raw_dir)
    raw_questions = _read_questions(question_file, job.limit, problems)
    draft, images = load_corpus(job, collections, _context_ids(raw_questions), problems)
    questions = [
        q
        for q in (_question(raw, where, draft, problems) for where, raw in raw_questions)
        if q is not None
    ]
    extra = {
        "source": {"repo": "allenai/multimodalqa", "questions": question_file.name},
        "limit": job.limit,
    }
    return finish(
        job, draft, questions, dataset="mmqa", problems=problems, images=images, extra_stats=extra
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
