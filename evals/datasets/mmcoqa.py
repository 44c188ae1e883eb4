"""Convert MMCoQA (liyongqi67/MMCoQA), conversational QA over MMQA's collections, into a bundle.

Questions (`MMCoQA_<split>.txt`, one JSON object per line): `qid` (`C_<conversation>_<turn>`),
`question` (as asked in the conversation), `gold_question` (rewritten to stand alone),
`history: [{question, answer}]` (the earlier turns), `answer: [{answer, modality,
text_instances, image_instances, ...}]`, `question_type` (text/table/image) and `table_id`.
`qrels.txt` is pytrec_eval JSON `{qid: {evidence_id: 1}}` naming one MMQA text/table/image item.
The evidence collections are MMQA's (`multimodalqa_final_dataset_pipeline_camera_ready_MMQA_*`).
With a limit the corpus holds the gold pages plus the pages their tables link to.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, CorpusDraft, finish
from evals.datasets.job import ConversionJob
from evals.datasets.mmqa import ANSWER_SOURCES, answer_strings
from evals.datasets.mmqa_collections import Collections, load_corpus
from evals.datasets.raw import (
    ProblemLog,
    find_raw_file,
    iter_jsonl,
    load_json,
)
from tools.errors import DatasetFormatError

logger = logging.getLogger(__name__)

SPLITS = ("dev", "train", "test")
_QID = re.compile(r"^(?P<conversation>.+)_(?P<turn>\d+)$")
_KINDS = ("paragraph", "table", "image")


def convert(job: ConversionJob) -> ConversionReport:
    """Convert one MMCoQA split into a bundle in job.out_dir; earlier turns fill `history`.

    Args:
        job: raw_dir holds MMCoQA_<split>.txt, qrels.txt and the MMQA collections; split is
            dev, train or test (MMCoQA's test split carries answers and evidence); limit
            counts turns; images_dir holds the images' `path` files (or final_dataset_images/).

    Raises:
        ConfigError: If the split is unknown or limit < 1.
        DatasetFormatError: If a raw file is missing or unreadable, or no question converts.
    """
    job.check("MMCoQA", SPLITS)
    problems = ProblemLog()
    question_file, qrels, turns = _read_split(job.raw_dir, job.split, job.limit, problems)
    wanted = {item for _, _, evidence in turns for _, item in evidence}
    draft, images = load_corpus(job, Collections.locate(job.raw_dir), wanted, problems)
    questions = _questions(turns, draft, problems)
    extra = {
        "source": {
            "repo": "liyongqi67/MMCoQA",
            "questions": question_file.name,
            "qrels": qrels is not None,
        },
        "limit": job.limit,
    }
    return finish(
        job, draft, questions, dataset="mmcoqa", problems=problems, images=images, extra_stats=extra
    )


Evidence = list[tuple[str | None, str]]
"""(component kind if known, MMQA item id) pairs of one turn."""


Turn = tuple[str, dict[str, Any], Evidence]
"""(file:line, raw turn record, its evidence) of one usable turn."""


def _read_split(
    raw_dir: Path, split: str, limit: int | None, problems: ProblemLog
) -> tuple[Path, dict[str, Any] | None, list[Turn]]:
    """Return the split's question file, the qrels (None if absent) and its usable turns."""
    names = [f"MMCoQA_{split}.txt", f"MMCoQA_{split}.text", f"MMCoQA_{split}.jsonl"]
    question_file = find_raw_file(raw_dir, names, f"MMCoQA {split} questions")
    qrels = _load_qrels(raw_dir)
    return question_file, qrels, _read_turns(question_file, limit, qrels, problems)


def _load_qrels(raw_dir: Path) -> dict[str, Any] | None:
    try:
        path = find_raw_file(raw_dir, ["qrels.txt", "qrels.json"], "MMCoQA qrels")
    except DatasetFormatError:
        logger.warning(
            "%s: no qrels.txt; taking each turn's evidence from its answer instances "
            "and table_id instead",
            raw_dir,
        )
        return None
    qrels = load_json(path)
    if not isinstance(qrels, dict):
        raise DatasetFormatError(
            f"{path}: expected a JSON object {{qid: {{evidence_id: 1}}}}, "
            f"got {type(qrels).__name__}; download qrels.txt again"
        )
    return qrels


def _read_turns(
    path: Path, limit: int | None, qrels: dict[str, Any] | None, problems: ProblemLog
) -> list[Turn]:
    turns: list[Turn] = []
    for where, record in iter_jsonl(path, problems):
        if not isinstance(record.get("qid"), str) or not isinstance(record.get("question"), str):
            problems.add(
                "bad_raw_record", f"{where}: turn without a string 'qid' or 'question'; skipped"
            )
            continue
        evidence = _evidence(record, qrels)
        if not evidence:
            problems.add(
                "no_gold",
                f"{where}: turn {record['qid']!r} has no evidence in qrels or its answer; skipped",
            )
            continue
        turns.append((where, record, evidence))
        if limit is not None and len(turns) >= limit:
            break
    return turns


def _evidence(record: dict[str, Any], qrels: dict[str, Any] | None) -> Evidence:
    labels = qrels.get(record["qid"]) if qrels is not None else None
    if isinstance(labels, dict):
        return [(None, str(item)) for item, rel in labels.items() if _positive(rel)]
    found: Evidence = []
    for answer in record.get("answer") or []:
        if not isinstance(answer, dict):
            continue
        for key, kind in (("text_instances", "paragraph"), ("image_instances", "image")):
            for instance in answer.get(key) or []:
                if isinstance(instance, dict) and isinstance(instance.get("doc_id"), str):
                    found.append((kind, instance["doc_id"]))
    if record.get("question_type") == "table" and isinstance(record.get("table_id"), str):
        found.append(("table", record["table_id"]))
    return list(dict.fromkeys(found))


def _positive(rel: object) -> bool:
    return isinstance(rel, int | float) and rel > 0


def _questions(turns: list[Turn], draft: CorpusDraft, problems: ProblemLog) -> list[dict[str, Any]]:
    asked: dict[str, list[str]] = {}
    questions = []
    for where, record, evidence in turns:
        qid = record["qid"]
        match = _QID.match(qid)
        conversation = match["conversation"] if match else qid
        history = _history(record, asked.get(conversation, []))
        asked.setdefault(conversation, []).append(record["question"])
        gold = [_component(draft, kind, item) for kind, item in evidence]
        if any(cid is None for cid in gold):
            problems.add(
                "gold_not_in_corpus",
                f"{where}: turn {qid!r}: evidence {evidence} is not in the collections; skipped",
            )
            continue
        qtype = record.get("question_type")
        questions.append(
            {
                "qid": qid,
                "question": record["question"],
                "answers": answer_strings(record.get("answer")),
                "gold_components": gold,
                "hops": 1,
                "modalities": [qtype] if isinstance(qtype, str) else [],
                "answer_source": ANSWER_SOURCES.get(str(qtype)),
                "conversation_id": conversation,
                "turn": len(history) + 1,
                "history": history,
                "gold_question": record.get("gold_question"),
            }
        )
    return questions


def _history(record: dict[str, Any], asked_before: list[str]) -> list[str]:
    """Return the earlier turns' questions: the record's own history, else those seen before."""
    raw = record.get("history")
    if not isinstance(raw, list):
        return list(asked_before)
    history = []
    for turn in raw:
        text = turn.get("question") if isinstance(turn, dict) else turn
        if isinstance(text, str) and text.strip():
            history.append(text.strip())
    return history


def _component(draft: CorpusDraft, kind: str | None, item: str) -> str | None:
    for candidate in (kind,) if kind else _KINDS:
        cid = draft.lookup(candidate, item)
        if cid is not None:
            return cid
    return None
