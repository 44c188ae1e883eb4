"""The client side of the soak benchmark: one keep-alive connection per client, a seeded mix.

Every request's outcome goes to a shared Log with the time it ended; a failure that ends
while the server is down (the restart window) is counted apart, and so is a 503 refusal
while a build holds the index's writer lock.
"""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import threading
import time
import urllib.parse
from collections import Counter
from typing import Any

K = 10
MIX = (("search", 50), ("ask", 20), ("fork", 10), ("browse", 20))
RUN_SYSTEMS = ("fif", "fif", "dense")


class ServerRef:
    """The server the clients talk to; the restart swaps its process (same port)."""

    def __init__(self, process: subprocess.Popen[bytes], port: int) -> None:
        self.process, self.port = process, port

    def swap(self, process: subprocess.Popen[bytes], port: int) -> None:
        """Point at the restarted server."""
        self.process, self.port = process, port

    def get(self, path: str) -> tuple[int, bytes]:
        """One GET on a fresh connection: (status, body)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


class Log:
    """Outcomes of every request, by kind, with the restart window's failures apart."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self.ok: Counter[str] = Counter()
        self.errors: list[tuple[float, str, str]] = []
        self.refused_503 = 0
        self.in_window = 0
        self._window: tuple[float, float | None] | None = None

    def window_open(self) -> None:
        """Mark the server as going down now."""
        self._window = (time.monotonic(), None)

    def window_close(self) -> None:
        """Mark the restarted server as answering again (a second's grace for late failures)."""
        assert self._window is not None
        self._window = (self._window[0], time.monotonic() + 1.0)

    def record(self, kind: str, error: str | None, status: int | None = None) -> None:
        """Count one request's outcome."""
        now = time.monotonic()
        with self._lock:
            if error is None:
                self.ok[kind] += 1
            elif status == 503 and "being rebuilt" in error:
                self.refused_503 += 1
            elif self._in_window(now):
                self.in_window += 1
            else:
                self.errors.append((now - self.started, kind, error[:300]))

    def _in_window(self, now: float) -> bool:
        if self._window is None:
            return False
        start, end = self._window
        return now >= start and (end is None or now <= end)

    def counts(self) -> dict[str, int]:
        """Return the successful requests by kind."""
        return dict(self.ok)

    def errors_outside(self) -> int:
        """Return the failures outside the restart window (503s of the build not included)."""
        return len(self.errors)

    def first_errors(self) -> list[str]:
        """Return the first few failures, for the report."""
        return [f"{t:.1f}s {kind}: {error}" for t, kind, error in self.errors[:5]]


class Failed(Exception):
    """A request that did not succeed: its status (None: no answer) and why."""

    def __init__(self, status: int | None, detail: str) -> None:
        super().__init__(detail)
        self.status = status


class Client:
    """One simulated user: searches, runs, forks its own FiF threads, browses."""

    def __init__(
        self, number: int, server: ServerRef, log: Log, questions: list[str], rng: random.Random
    ) -> None:
        self.number, self.server, self.log = number, server, log
        self.questions, self.rng = questions, rng
        self.connection: http.client.HTTPConnection | None = None
        self.finished: dict[str, str] = {}
        """FiF threads whose result arrived -> their question (checked at the end)."""

    def loop(self, stop: threading.Event) -> None:
        """Run the mix until stopped."""
        kinds = [kind for kind, _ in MIX]
        weights = [weight for _, weight in MIX]
        while not stop.is_set():
            kind = self.rng.choices(kinds, weights)[0]
            try:
                getattr(self, kind)()
                self.log.record(kind, None)
            except Failed as failure:
                self.log.record(kind, str(failure), failure.status)
                self.connection = None
                if failure.status == 503:
                    time.sleep(1.0)  # a build holds the index: retry in a moment
            except (OSError, http.client.HTTPException) as error:
                self.log.record(kind, f"{type(error).__name__}: {error}")
                self.connection = None
                time.sleep(0.2)  # the server is down: do not spin

    def search(self) -> None:
        """GET /api/search with a random mode."""
        mode = self.rng.choice(("dense", "sparse", "hybrid"))
        query = urllib.parse.urlencode({"q": self._question(), "k": K, "mode": mode})
        self._json("GET", f"/api/search?{query}")

    def ask(self) -> None:
        """Start an offline run and read its events to the end; remember a FiF thread."""
        system = self.rng.choice(RUN_SYSTEMS)
        question = self._question()
        body = {"question": question, "system": system, "k": K, "max_steps": 4}
        started = self._json("POST", "/api/runs", body)
        self._follow(started["events"])
        if system == "fif":
            self.finished[started["thread_id"]] = question

    def fork(self) -> None:
        """Fork one of this client's FiF threads from its first resumable checkpoint."""
        if not self.finished:
            return self.browse()
        thread_id = self.rng.choice(sorted(self.finished))
        rows = self._json("GET", f"/api/threads/{thread_id}/checkpoints")["checkpoints"]
        resumable = [r for r in rows if r["next_nodes"]]
        if not resumable:
            return None
        body = {"checkpoint_id": resumable[0]["checkpoint_id"], "max_steps": 2}
        started = self._json("POST", f"/api/threads/{thread_id}/fork", body)
        self._follow(started["events"])
        return None

    def browse(self) -> None:
        """The thread list, the eval list and one eval run."""
        self._json("GET", "/api/threads?limit=20")
        self._json("GET", "/api/evals")
        self._json("GET", "/api/evals/run?name=soak")

    def _question(self) -> str:
        return self.rng.choice(self.questions)

    def _json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        status, payload = self._request(method, path, body)
        if status != 200:
            raise Failed(status, f"{method} {path.split('?')[0]}: {status} {payload[:200]!r}")
        return json.loads(payload)

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> tuple[int, bytes]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=300)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def _follow(self, events_url: str) -> None:
        """Read a run's event stream to its end; a failed run or a cut stream is a failure."""
        status, payload = self._request("GET", events_url)
        text = payload.decode("utf-8", errors="replace")
        if status != 200:
            raise Failed(status, f"events: {status} {text[:200]}")
        if "event: end" not in text:
            raise Failed(None, "the event stream ended before its end event")
        if "event: error" in text or "event: result" not in text:
            raise Failed(None, f"the run failed: {text[text.find('event: error') :][:300]}")
