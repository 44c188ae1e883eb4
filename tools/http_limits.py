"""HTTP limits below the app of both servers (`fif serve`, `fif mcp --transport http`).

uvicorn's httptools parser accepts a header of any size (a 100 MB one takes seconds to
parse and holds its memory), so the server speaks HTTP/1.1 through h11, which refuses a
request line plus headers over `MAX_HEAD_BYTES`. uvicorn has no timeout for a client that
sends its request slowly (slowloris); `BoundedH11Protocol` closes a connection whose
request is not fully received within `REQUEST_TIMEOUT_S` of its first byte (or of the
connection).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEAD_BYTES = 16 * 1024
"""Request line plus headers (h11 answers a bigger head with 400 and closes)."""
REQUEST_TIMEOUT_S = 10.0
"""Time a client has to send a whole request (head and body; the body is at most 64 KB)."""
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 128
"""Open connections (each live stream holds one) before uvicorn answers 503."""
WAITING = (h11.IDLE, h11.SEND_BODY)
"""h11 states of a client whose request has not fully arrived."""


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for receiving each request."""

    request_timeout_s = REQUEST_TIMEOUT_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock for the connection's first request."""
        super().connection_made(transport)
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does; stop the clock once the request is in, restart it after."""
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        """Let uvicorn's keep-alive timeout govern the idle time after a response."""
        super().on_response_complete()
        self._disarm()

    def _watch(self) -> None:
        waiting = self.conn.their_state in WAITING and not self.transport.is_closing()
        if waiting and self._deadline is None:
            self._deadline = self.loop.call_later(self.request_timeout_s, self._too_slow)
        elif not waiting:
            self._disarm()

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state in WAITING and not self.transport.is_closing():
            seconds = self.request_timeout_s
            self.logger.warning("closing a connection whose request took over %ss", seconds)
            self.transport.close()


def server_options() -> dict[str, Any]:
    """Return the `uvicorn.Config` options that apply these limits."""
    return {
        "http": BoundedH11Protocol,
        "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
        "timeout_keep_alive": KEEP_ALIVE_S,
        "limit_concurrency": MAX_CONNECTIONS,
    }
