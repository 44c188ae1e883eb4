"""Read a bundle's `questions.jsonl` into typed evaluation examples, reporting every bad line."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tools.errors import DatasetFormatError
from tools.not_blank import not_blank

logger = logging.getLogger(__name__)


class QuestionRecord(BaseModel):
    """One line of a bundle's `questions.jsonl`; extra fields (gold_cells, table_id) are kept."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)

    qid: str = Field(min_length=1, description="Unique question id within the bundle.")
    question: str = Field(min_length=1, description="The question text as asked.")
    answers: list[str] = Field(description="Reference answers; EM/F1 take the best match.")
    gold_components: list[str] = Field(min_length=1, description="Component ids holding evidence.")
    gold_docs: list[str] = Field(default_factory=list, description="Documents of the gold ids.")
    hops: int | None = Field(default=None, ge=1, description="Evidence pieces to chain, if known.")
    modalities: list[str] = Field(default_factory=list, description="text / table / image needed.")
    answer_source: str | None = Field(default=None, description="Where the answer is read from.")
    conversation_id: str | None = Field(default=None, description="Conversation of this turn.")
    turn: int | None = Field(default=None, ge=0, description="Position in the conversation.")
    history: list[str] = Field(default_factory=list, description="Earlier turns' questions.")
    gold_pages: list[str] = Field(
        default_factory=list, description='Evidence pages as "DOC#PAGE", zero-indexed (PDFs).'
    )
    question_docs: list[str] = Field(
        default_factory=list, description="Documents the question is about (e.g. the filing)."
    )

    _not_blank = field_validator("qid", "question")(not_blank("must not be blank", strip=True))

    @field_validator("gold_components")
    @classmethod
    def _no_blank_ids(cls, value: list[str]) -> list[str]:
        if any(not cid.strip() for cid in value):
            raise ValueError("gold component ids must not be blank")
        return [cid.strip() for cid in value]


@dataclass(frozen=True)
class EvalExample:
    """One question ready for evaluation: what to ask, the gold evidence and how to group it."""

    qid: str
    question: str
    answers: tuple[str, ...]
    gold_components: tuple[str, ...]
    gold_docs: tuple[str, ...] = ()
    hops: int | None = None
    modalities: tuple[str, ...] = ()
    answer_source: str | None = None
    conversation_id: str | None = None
    turn: int | None = None
    history: tuple[str, ...] = ()
    gold_pages: tuple[str, ...] = ()
    """Evidence pages as "DOC#PAGE" with zero-indexed pages, for page-level metrics."""
    question_docs: tuple[str, ...] = ()
    """The documents the question is about (a FinanceBench question's filing)."""
    source: str = ""
    """Where the example was read from, as `path:line`."""
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    """Dataset-specific fields of the record (gold_cells, table_id, qcate, ...)."""

    @property
    def gold(self) -> frozenset[str]:
        """Return the gold component ids as a set, the form the retrieval metrics take."""
        return frozenset(self.gold_components)

    @classmethod
    def from_record(cls, record: QuestionRecord, source: str = "") -> EvalExample:
        """Return the example a validated record describes."""
        return cls(
            qid=record.qid,
            question=record.question,
            answers=tuple(record.answers),
            gold_components=tuple(record.gold_components),
            gold_docs=tuple(record.gold_docs),
            hops=record.hops,
            modalities=tuple(record.modalities),
            answer_source=record.answer_source,
            conversation_id=record.conversation_id,
            turn=record.turn,
            history=tuple(record.history),
            gold_pages=tuple(record.gold_pages),
            question_docs=tuple(record.question_docs),
            source=source,
            extra=dict(record.model_extra or {}),
        )


@dataclass(frozen=True)
class QuestionProblem:
    """A question line that was skipped, and why."""

    path: Path
    line: int
    qid: str | None
    message: str

    def __str__(self) -> str:
        who = f" (qid {self.qid!r})" if self.qid else ""
        return f"{self.path}:{self.line}{who}: {self.message}"


@dataclass(frozen=True)
class LoadedQuestions:
    """The usable examples of a question file and the lines that were skipped."""

    examples: tuple[EvalExample, ...]
    problems: tuple[QuestionProblem, ...]


def load_questions(
    path: Path,
    known_component_ids: set[str] | frozenset[str] | None = None,
    strict: bool = False,
) -> LoadedQuestions:
    """Read a `questions.jsonl` file, skipping (or, when strict, refusing) malformed lines.

    Every skipped line is logged as a WARNING naming `path:line` and becomes a problem entry:
    bad JSON, a missing or invalid field, a duplicate qid, or gold ids none of which are in
    `known_component_ids`. Gold ids only partly unknown keep the example and log a WARNING
    naming the qid and the ids, since its all-gold recall can then never reach 1.

    Args:
        path: The question file.
        known_component_ids: Component ids of the corpus; None skips the check.
        strict: Raise on the first problem instead of skipping the line.

    Raises:
        DatasetFormatError: If the file cannot be read, or strict and a line is bad.
    """
    try:
        handle = path.open("rb")
    except OSError as err:
        raise DatasetFormatError(
            f"{path}: cannot open question file ({err.strerror}); "
            "pass the questions.jsonl of a converted bundle"
        ) from err
    examples: list[EvalExample] = []
    problems: list[QuestionProblem] = []
    first_line: dict[str, int] = {}
    with handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            outcome = _parse(raw, path, line_no, first_line, known_component_ids)
            if isinstance(outcome, QuestionProblem):
                if strict:
                    raise DatasetFormatError(
                        f"{outcome}; fix or remove that line, or load with strict=False to skip it"
                    )
                logger.warning("%s; line skipped", outcome)
                problems.append(outcome)
                continue
            first_line[outcome.qid] = line_no
            examples.append(outcome)
    return LoadedQuestions(tuple(examples), tuple(problems))


def _parse(
    raw: bytes,
    path: Path,
    line_no: int,
    first_line: dict[str, int],
    known: set[str] | frozenset[str] | None,
) -> EvalExample | QuestionProblem:
    def problem(message: str, qid: str | None = None) -> QuestionProblem:
        return QuestionProblem(path, line_no, qid, message)

    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        return problem(f"not UTF-8 ({err.reason} at byte {err.start}); re-encode the file")
    except json.JSONDecodeError as err:
        return problem(f"not valid JSON ({err.msg} at column {err.colno})")
    if not isinstance(payload, dict):
        return problem(f"expected a JSON object, got {type(payload).__name__}")
    raw_qid = payload.get("qid")
    qid = raw_qid if isinstance(raw_qid, str) else None
    try:
        record = QuestionRecord.model_validate(payload)
    except ValidationError as err:
        return problem(_describe(err), qid)
    if record.qid in first_line:
        return problem(f"duplicate qid (first seen at line {first_line[record.qid]})", record.qid)
    if known is not None:
        unknown = [cid for cid in record.gold_components if cid not in known]
        if len(unknown) == len(record.gold_components):
            return problem(
                f"none of its gold component ids is in the corpus: {unknown}; "
                "convert the questions and the corpus from the same bundle",
                record.qid,
            )
        if unknown:
            logger.warning(
                "%s:%d (qid %r): gold component ids not in the corpus: %s; "
                "all-gold recall for this question is capped below 1",
                path,
                line_no,
                record.qid,
                unknown,
            )
    return EvalExample.from_record(record, f"{path}:{line_no}")


def _describe(err: ValidationError) -> str:
    parts = []
    for item in err.errors():
        where = ".".join(str(part) for part in item["loc"]) or "record"
        parts.append(f"field {where!r}: {item['msg']}")
    return "; ".join(parts)
