"""A LangSmith API on loopback for tests: it records every request and keeps datasets in memory.

It answers the few routes `evals.langsmith_eval` uses (datasets, examples, experiments as
sessions, runs, feedback) with the fields the langsmith client parses; any other route gets
an empty JSON object, and every request is recorded, so a test can count them.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

TENANT = str(uuid.UUID(int=1))


def _now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class FakeLangSmith:
    """What the fake server holds: requests seen, datasets and examples by id."""

    url: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    datasets: dict[str, dict[str, Any]] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def paths(self, method: str) -> list[str]:
        """Return the paths requested with `method`, in order."""
        return [path for verb, path in self.requests if verb == method]

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Any:
        """Return the JSON reply to one request (None means 404)."""
        if path == "/datasets" and method == "GET":
            names = query.get("name", [])
            return [d for d in self.datasets.values() if not names or d["name"] in names]
        if path == "/datasets" and method == "POST":
            dataset = {**body, "id": str(uuid.uuid4()), "created_at": _now(), "tenant_id": TENANT}
            self.datasets[dataset["id"]] = dataset
            return dataset
        if path.startswith("/datasets/") and method == "GET":
            return self.datasets.get(path.split("/")[2])
        if path == "/examples" and method == "GET":
            wanted = set(query.get("dataset", []))
            return [ex for ex in self.examples if not wanted or ex["dataset_id"] in wanted]
        if path == "/examples/bulk" and method == "POST":
            return self._add_examples(body)
        if path.startswith("/sessions"):
            return self._session(method, path, body)
        return {}

    def _session(self, method: str, path: str, body: Any) -> Any:
        """Experiments are sessions: created, read and closed (PATCH) by id."""
        if method == "POST":
            session = {"reference_dataset_id": None, **body, "id": str(uuid.uuid4())}
            session.update(tenant_id=TENANT, start_time=_now())
            self.sessions[session["id"]] = session
            return session
        if path == "/sessions":
            return list(self.sessions.values())
        session = self.sessions.get(path.split("/")[2])
        if session is not None and method == "PATCH" and isinstance(body, dict):
            session.update(body)
        return session

    def _add_examples(self, body: list[dict[str, Any]]) -> list[dict[str, Any]]:
        added = [{"created_at": _now(), "modified_at": _now(), **ex} for ex in body]
        self.examples += added
        return added


def _handler(state: FakeLangSmith) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            url = urlparse(self.path)
            with state.lock:
                state.requests.append((self.command, url.path))
                state.bodies.append(raw)
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None  # multipart run uploads: recorded, not parsed
                reply = state.answer(self.command, url.path, parse_qs(url.query), body)
            data = json.dumps(reply).encode()
            self.send_response(404 if reply is None else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _reply

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            """Keep the test output quiet."""

    return Handler


@contextmanager
def fake_langsmith() -> Iterator[FakeLangSmith]:
    """Serve a FakeLangSmith on 127.0.0.1 (a free port) for the duration of the block."""
    state = FakeLangSmith()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
