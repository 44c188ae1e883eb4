"""Read benchmarks' published raw files: locate them, stream JSON lines, and log bad records."""

from __future__ import annotations

import gzip
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from io import BufferedIOBase
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from evals.datasets.progress import record_read
from tools.errors import DatasetFormatError

logger = logging.getLogger(__name__)

WARNINGS_PER_KIND = 20
"""Problems of one kind logged one by one before only counting them (all are counted)."""
MESSAGES_KEPT = 200
"""Problem messages kept for the report and the bundle's PROBLEMS_FILE (all are counted)."""
PROBLEMS_FILE = "problems.txt"
"""A converted bundle's file listing its problem messages, one a line."""


class ProblemLog:
    """Count degraded conversion paths by kind, log them as WARNINGs and keep the first messages."""

    def __init__(self, silent: bool = False) -> None:
        # silent: count only, for a second pass over a file whose problems were already logged
        self.silent = silent
        self.counts: Counter[str] = Counter()
        self.messages: list[str] = []

    def add(self, kind: str, message: str) -> None:
        """Record one problem of a kind; the message names the file/line or id and the fix."""
        self.counts[kind] += 1
        if self.silent:
            return
        if self.counts[kind] <= WARNINGS_PER_KIND:
            logger.warning("%s", message)
        elif self.counts[kind] == WARNINGS_PER_KIND + 1:
            logger.warning("more %r problems follow; counting them without logging each", kind)
        if len(self.messages) < MESSAGES_KEPT:
            self.messages.append(message)

    def write(self, out_dir: Path) -> None:
        """Write the kept messages to `out_dir/PROBLEMS_FILE` (removed when there are none)."""
        path = out_dir / PROBLEMS_FILE
        if not self.messages:
            path.unlink(missing_ok=True)  # a previous conversion's list no longer applies
            return
        lines = list(self.messages)
        if (unkept := self.counts.total() - len(lines)) > 0:
            lines.append(f"… {unkept} more, not kept; stats.json counts every problem by kind")
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    def log_summary(self, dataset: str) -> None:
        """Log one WARNING with the count of every problem kind, if there were any."""
        if self.counts:
            summary = ", ".join(f"{kind}={count}" for kind, count in sorted(self.counts.items()))
            logger.warning("%s conversion finished with problems: %s", dataset, summary)


def find_raw_file(raw_dir: Path, candidates: Sequence[str], what: str) -> Path:
    """Return the first candidate path (relative to raw_dir) that is a file.

    When none is at its given place, the candidates' file names are searched for in the
    subfolders of raw_dir too (downloads unpack into differently named folders).

    Raises:
        DatasetFormatError: If none exists; the message lists the names looked for.
    """
    path = _at_place(raw_dir, candidates, Path.is_file) or next(
        (p for name in candidates for p in sorted(raw_dir.rglob(Path(name).name)) if p.is_file()),
        None,
    )
    if path is None:
        raise DatasetFormatError(
            f"{raw_dir}: no {what} found (looked for {', '.join(candidates)}); "
            "download the benchmark's published files into that folder"
        )
    return path


def find_optional_file(
    raw_dir: Path, candidates: Sequence[str], what: str, without: str
) -> Path | None:
    """Return the file `find_raw_file` finds, or None after a WARNING saying what goes without.

    Args:
        raw_dir: The benchmark's folder.
        candidates: Paths relative to raw_dir, in order of preference.
        what: The file, as the message names it.
        without: What the bundle lacks when the file is missing, e.g. "questions get no regions".
    """
    try:
        return find_raw_file(raw_dir, candidates, what)
    except DatasetFormatError as err:  # the file only adds to the bundle: say so and go on
        logger.warning("%s; %s", err, without)
        return None


def find_raw_dir(raw_dir: Path, candidates: Sequence[str], what: str) -> Path:
    """Return the first candidate folder (relative to raw_dir) that exists.

    Raises:
        DatasetFormatError: If none exists; the message lists the names looked for.
    """
    path = _at_place(raw_dir, candidates, Path.is_dir)
    if path is None:
        raise DatasetFormatError(
            f"{raw_dir}: no {what} folder found (looked for "
            f"{', '.join(candidates)}); unpack the benchmark's files there"
        )
    return path


def _at_place(
    raw_dir: Path, candidates: Sequence[str], is_kind: Callable[[Path], bool]
) -> Path | None:
    """Return the first candidate (relative to raw_dir) of the wanted kind, if any."""
    return next((raw_dir / name for name in candidates if is_kind(raw_dir / name)), None)


def _open(path: Path) -> BufferedIOBase:
    return gzip.GzipFile(path, "rb") if path.suffix == ".gz" else path.open("rb")


def iter_jsonl(path: Path, problems: ProblemLog) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield `(path:line, object)` for each JSON-object line of a (gzipped) JSONL file.

    Blank lines are ignored; lines that are not UTF-8 JSON objects are logged as `bad_raw_line`
    problems and skipped.

    Raises:
        DatasetFormatError: If the file cannot be opened or is truncated/not gzip.
    """
    line_no = 0
    try:
        with _open(path) as handle:
            for line_no, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                where = f"{path}:{line_no}"
                record_read()
                record = _decode(raw, where, problems)
                if record is not None:
                    yield where, record
    except (OSError, EOFError) as err:
        raise DatasetFormatError(
            f"{path}: unreadable after line {line_no} ({err}); the file is "
            "missing, truncated or not gzip: download it again"
        ) from err


def _decode(raw: bytes, where: str, problems: ProblemLog) -> dict[str, Any] | None:
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        problems.add("bad_raw_line", f"{where}: not UTF-8 ({err.reason}); line skipped")
        return None
    except json.JSONDecodeError as err:
        problems.add(
            "bad_raw_line",
            f"{where}: not valid JSON ({err.msg} at column {err.colno}); line skipped",
        )
        return None
    if not isinstance(payload, dict):
        problems.add(
            "bad_raw_line",
            f"{where}: expected a JSON object, got {type(payload).__name__}; line skipped",
        )
        return None
    return payload


def load_json(path: Path) -> Any:
    """Return the parsed content of a whole-file JSON document.

    Raises:
        DatasetFormatError: If the file cannot be read or is not valid JSON.
    """
    try:
        with _open(path) as handle:
            return json.loads(handle.read().decode("utf-8"))
    except (OSError, EOFError) as err:
        raise DatasetFormatError(f"{path}: cannot read ({err}); download it again") from err
    except UnicodeDecodeError as err:
        raise DatasetFormatError(
            f"{path}: not UTF-8 at byte {err.start}; download it again"
        ) from err
    except json.JSONDecodeError as err:
        raise DatasetFormatError(
            f"{path}:{err.lineno}: not valid JSON ({err.msg} at column "
            f"{err.colno}); download the file again"
        ) from err


def str_field(record: Mapping[str, Any], key: str) -> str | None:
    """Return record[key] when it is a non-blank string, else None."""
    value = record.get(key)
    return value if isinstance(value, str) and value.strip() else None


def dict_field(record: Mapping[str, Any], key: str) -> dict[str, Any]:
    """Return record[key] when it is a JSON object, else an empty dict."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def list_field(record: Mapping[str, Any], key: str) -> list[Any]:
    """Return record[key] when it is a JSON list, else an empty list."""
    value = record.get(key)
    return value if isinstance(value, list) else []


def doc_id_from_url(url: object, title: object = None) -> str | None:
    """Return a document id for a page: the part after `/wiki/`, else host+path, else the title.

    `https://en.wikipedia.org/wiki/New_Haven,_Connecticut` and `/wiki/New_Haven,_Connecticut`
    both give `New_Haven,_Connecticut` (percent-escapes decoded); a title gives underscores
    for spaces. Returns None when neither yields an id.
    """
    if isinstance(url, str) and url.strip():
        parts = urlsplit(url.strip())
        path = unquote(parts.path)
        if "/wiki/" in path:
            page = path.split("/wiki/", 1)[1].strip("/")
        else:
            page = f"{parts.netloc}{path}".strip("/")
        if page:
            return page.replace(" ", "_")
    if isinstance(title, str) and title.strip():
        return "_".join(title.split())
    return None


def title_from_doc_id(doc_id: str) -> str:
    """Return the readable title of a Wikipedia-style doc id (underscores become spaces)."""
    return doc_id.replace("_", " ")
