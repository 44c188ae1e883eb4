"""The append-only results file of an eval run, safe against `kill -9` and concurrent runners.

Each (question, system) result is one JSON line, appended with a single `write` while holding an
exclusive `fcntl.flock` on the file, then flushed and fsynced. A killed writer can leave at most
one torn last line (no trailing newline, or bad JSON); the next writer truncates it under the
lock before appending. Every writer re-reads what other runners appended since its last look
before it writes, so two runners on one out dir neither interleave bytes nor write a pair twice.
Readers keep the latest line per (qid, system). A line stores the key it was computed under
(`run_key`, see `evals.run_key`); a pair counts as done for a writer only under that writer's key.

Kept hand-written rather than moved to SQLite: results.jsonl is what users, the report, the judge
and the benchmarks read, so a database would be a second copy to keep in step with it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"

Key = tuple[str, str]
"""(qid, system) of a result line."""
KEY_FIELD = "run_key"
"""The field of a result line holding the key it was computed under (a dict, or absent)."""


def parse_lines(data: bytes, where: str) -> tuple[list[dict[str, Any]], int]:
    """Parse complete JSON lines; return the records and the byte length of the good prefix.

    Lines in the middle that are not JSON objects with a qid and a system are logged and skipped.
    A last line without its newline, or a bad last line, is left out of the good prefix so
    the caller can truncate it.

    Args:
        data: Bytes read from a results file (or its unread tail).
        where: The file name (and offset) used in log messages.
    """
    records: list[dict[str, Any]] = []
    good = 0
    position = 0
    while position < len(data):
        end = data.find(b"\n", position)
        if end < 0:
            torn = len(data) - position
            logger.warning("%s: torn last line (%d bytes, no newline) ignored", where, torn)
            break
        record = _record(data[position:end])
        position = end + 1
        if record is None and position == len(data):
            logger.warning("%s: unreadable last line ignored", where)
            break
        if record is None:
            logger.warning("%s: unreadable line at byte %d skipped", where, end)
        else:
            records.append(record)
        good = position
    return records, good


def _record(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(value, dict) or not {"qid", "system"} <= value.keys():
        return None
    return value


def is_complete(record: Mapping[str, Any]) -> bool:
    """Tell whether a result line counts as done (failed runs are redone on resume)."""
    return not record.get("error")


class ResultsLog:
    """One runner's handle on `OUT/results.jsonl`; thread-safe within the process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._done: dict[Key, Any] = {}
        self._thread_lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        with self._locked() as fd:
            self._catch_up(fd)

    @contextmanager
    def _locked(self) -> Iterator[int]:
        """Hold this process's thread lock and the file's exclusive flock; yield the fd."""
        with self._thread_lock:
            fd = os.open(self.path, os.O_RDWR)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield fd
            finally:
                os.close(fd)  # closing the only descriptor releases the flock

    def _catch_up(self, fd: int) -> None:
        """Read what was appended since the last look; truncate a torn tail (lock held)."""
        size = os.fstat(fd).st_size
        if size < self._offset:
            logger.warning("%s shrank under us; re-reading it", self.path)
            self._offset, self._done = 0, {}
        data = _read_from(fd, self._offset, size)
        records, good = parse_lines(data, f"{self.path} (from byte {self._offset})")
        for record in records:
            key = (str(record["qid"]), str(record["system"]))
            if is_complete(record):
                self._done[key] = record.get(KEY_FIELD)
            else:
                self._done.pop(key, None)
        if good < len(data):
            logger.warning("%s: truncating a torn tail of %d bytes", self.path, len(data) - good)
            os.ftruncate(fd, self._offset + good)
            os.fsync(fd)
        self._offset += good

    def done(self) -> dict[Key, Any]:
        """Return each (qid, system) pair with a complete latest result → the key it ran under.

        Other runners' lines count too; a pair whose latest line failed is absent.
        """
        with self._locked() as fd:
            self._catch_up(fd)
            return dict(self._done)

    def append(self, record: dict[str, Any], *, replace: bool = False) -> bool:
        """Append one result line durably; return False if the pair was already done.

        Already done means a complete latest line under the same `run_key` (another runner
        finished it); a line under another key is superseded by this one. With `replace`,
        the line is appended anyway and supersedes any earlier one.

        Raises:
            ValueError: If the record lacks a qid or a system.
        """
        key = (str(record.get("qid", "")), str(record.get("system", "")))
        if not all(key):
            raise ValueError(f"a result line needs a qid and a system, got {sorted(record)}")
        line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        with self._locked() as fd:
            self._catch_up(fd)
            if not replace and key in self._done and self._done[key] == record.get(KEY_FIELD):
                logger.info("%s/%s was finished by another runner; result dropped", *key)
                return False
            _write_at(fd, self._offset, line)
            os.fsync(fd)
            self._offset += len(line)
            if is_complete(record):
                self._done[key] = record.get(KEY_FIELD)
            else:
                self._done.pop(key, None)
        return True


def _read_from(fd: int, start: int, end: int) -> bytes:
    chunks = []
    while start < end:
        chunk = os.pread(fd, end - start, start)
        if not chunk:
            break
        chunks.append(chunk)
        start += len(chunk)
    return b"".join(chunks)


def _write_at(fd: int, offset: int, data: bytes) -> None:
    """Write all of data at offset: one pwrite for any line of sane size."""
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], offset + written)


def read_latest(path: Path) -> dict[Key, dict[str, Any]]:
    """Return the latest line per (qid, system) of a results file (a torn tail is ignored)."""
    if not path.is_file():
        return {}
    records, _ = parse_lines(path.read_bytes(), str(path))
    return {(str(r["qid"]), str(r["system"])): r for r in records}
