"""uvicorn as `fif serve` runs it: a huge header and a slow client are cut off, others go on."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tools.http_limits import MAX_HEAD_BYTES, BoundedH11Protocol, server_options

pytestmark = pytest.mark.integration
TIMEOUT_S = 1.0


def _hello(request: object) -> PlainTextResponse:
    return PlainTextResponse("hello")


@pytest.fixture(scope="module")
def port(monkeypatch_module: pytest.MonkeyPatch) -> Iterator[int]:
    """Serve a one-route app with the server's limits (a short request timeout) on loopback."""
    monkeypatch_module.setattr(BoundedH11Protocol, "request_timeout_s", TIMEOUT_S)
    app = Starlette(routes=[Route("/", _hello)])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = int(probe.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=free, log_level="error", **server_options())
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    for _ in range(100):  # bounded: 10 s
        if server.started:
            break
        time.sleep(0.1)
    yield free
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    patch = pytest.MonkeyPatch()
    yield patch
    patch.undo()


def _ask(port: int, raw: bytes, wait_s: float = 5.0) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=wait_s) as conn:
        conn.sendall(raw)
        chunks = []
        while True:
            try:
                chunk = conn.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_normal_request_is_answered(port: int) -> None:
    reply = _ask(port, b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"hello")


def test_a_huge_header_is_refused_before_it_ends(port: int) -> None:
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
        try:
            for _ in range(64):  # up to 64 x the limit, never ending the header
                conn.sendall(b"a" * MAX_HEAD_BYTES)
                time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: refused
        reply = conn.recv(1024)
    assert reply.startswith(b"HTTP/1.1 400") or reply == b""
    assert time.perf_counter() - started < 5.0


def test_a_slow_client_is_cut_off_while_others_are_served(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: local")  # and never the rest
        assert test_a_normal_request_is_answered(port) is None  # not held up
        started = time.perf_counter()
        assert slow.recv(1024) == b""  # closed by the server
        assert time.perf_counter() - started < TIMEOUT_S + 2.0
