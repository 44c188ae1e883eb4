"""One event log per thread: the live trace, its resumption after a dropped connection, and replay.

A run appends events (thread, step, result, error, end) as they happen; readers ask for the
events after an id. Server-sent events carry ids `<thread>:<seq>`, so a browser's
`Last-Event-ID` names both the thread and where to resume. Logs live in memory, the oldest
dropped past MAX_THREADS; a thread that is not in memory (run by `fif ask`, or before a
restart) gets its log rebuilt from its checkpoints by the same summaries (serve.steps).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

MAX_THREADS = 256
TERMINAL = ("end",)


@dataclass(frozen=True)
class Event:
    """One entry of a thread's log: its position, kind and JSON payload."""

    thread_id: str
    seq: int
    kind: str
    data: dict[str, Any]

    @property
    def event_id(self) -> str:
        """Return the SSE id of the event: `<thread>:<seq>`."""
        return f"{self.thread_id}:{self.seq}"

    def as_sse(self) -> dict[str, str]:
        """Return the event as sse-starlette's dict (id, event, data)."""
        return {"id": self.event_id, "event": self.kind, "data": json.dumps(self.data)}

    def as_json(self) -> dict[str, Any]:
        """Return the event as a plain JSON object."""
        return {"id": self.event_id, "seq": self.seq, "kind": self.kind, "data": self.data}


@dataclass
class ThreadLog:
    """The events of one thread so far, and whether its run has ended."""

    events: list[Event] = field(default_factory=list)
    done: bool = False


def parse_event_id(event_id: str | None) -> tuple[str, int] | None:
    """Split a `<thread>:<seq>` event id; None when it is absent or malformed."""
    if not event_id or ":" not in event_id:
        return None
    thread_id, _, seq = event_id.rpartition(":")
    return (thread_id, int(seq)) if seq.isdigit() and thread_id else None


class EventLogs:
    """Every thread's log in this process, safe to append and read from several threads."""

    def __init__(self, max_threads: int = MAX_THREADS) -> None:
        self._logs: OrderedDict[str, ThreadLog] = OrderedDict()
        self._lock = threading.Condition()
        self._max = max_threads

    def open(self, thread_id: str) -> bool:
        """Start an empty log for a thread (replacing an ended one, e.g. for a fork).

        Returns False, and leaves the log alone, while the thread's run is still going: one
        check-and-open under the lock, so two requests cannot both start a run on a thread.
        """
        with self._lock:
            log = self._logs.get(thread_id)
            if log is not None and not log.done:
                return False
            self._logs[thread_id] = ThreadLog()
            self._logs.move_to_end(thread_id)
            while len(self._logs) > self._max:
                self._logs.popitem(last=False)
            return True

    def has(self, thread_id: str) -> bool:
        """Tell whether this process holds a log for the thread."""
        with self._lock:
            return thread_id in self._logs

    def running(self, thread_id: str) -> bool:
        """Tell whether the thread's run is still appending events."""
        with self._lock:
            log = self._logs.get(thread_id)
            return log is not None and not log.done

    def append(self, thread_id: str, kind: str, data: dict[str, Any]) -> Event:
        """Append an event (an `end` event closes the log) and wake the readers."""
        with self._lock:
            log = self._logs.setdefault(thread_id, ThreadLog())
            event = Event(thread_id, len(log.events), kind, data)
            log.events.append(event)
            log.done = log.done or kind in TERMINAL
            self._lock.notify_all()
            return event

    def after(self, thread_id: str, seq: int, wait_s: float = 0.0) -> tuple[list[Event], bool]:
        """Return the events after `seq` (-1: all) and whether the log has ended.

        Waits up to `wait_s` seconds for a new event when there is none yet.
        """
        with self._lock:
            log = self._logs.get(thread_id)
            if log is None:
                return [], True
            if wait_s > 0 and not log.done and len(log.events) <= seq + 1:
                self._lock.wait(wait_s)
            return list(log.events[seq + 1 :]), log.done
