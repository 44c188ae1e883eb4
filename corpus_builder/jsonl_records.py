"""Read a JSON-lines input file record by record: a bad line is reported and skipped."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from state.corpus import IngestReport

Record = TypeVar("Record", bound=BaseModel)


def jsonl_records(
    path: Path, model: type[Record], report: IngestReport, invalid: Callable[[str], str]
) -> Iterator[tuple[str, Record]]:
    """Yield `(path:line, record)` for every line that holds one valid record of a model.

    Blank lines are passed over; a line that is not UTF-8 (a BOM is allowed), not JSON or
    not a valid record is reported as skipped where it stands.

    Args:
        path: The JSONL file (an OSError reading it reaches the caller).
        model: The pydantic model of one line.
        report: Receives the skipped lines.
        invalid: Turns the first validation problem ("field: message") into the skip message.
    """
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            where = f"{path}:{line_no}"
            record = _parse(raw, where, model, report, invalid)
            if record is not None:
                yield where, record


def first_error(err: ValidationError) -> str:
    """Return the first problem of a validation error as "field.path: message"."""
    first = err.errors()[0]
    location = ".".join(str(part) for part in first["loc"]) or "record"
    return f"{location}: {first['msg']}"


def _parse(
    raw: bytes,
    where: str,
    model: type[Record],
    report: IngestReport,
    invalid: Callable[[str], str],
) -> Record | None:
    if not raw.strip():
        return None
    try:
        text = raw.decode("utf-8-sig")  # a BOM (Windows editors) must not cost line 1
    except UnicodeDecodeError as err:
        report.skip(where, f"not UTF-8 ({err.reason} at byte {err.start}); re-encode the file")
        return None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as err:
        report.skip(where, f"malformed JSON: {err.msg} at column {err.colno}")
        return None
    try:
        return model.model_validate(payload)
    except ValidationError as err:
        report.skip(where, invalid(first_error(err)))
        return None
