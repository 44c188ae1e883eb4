"""How many runs one client may have going at once, over every index of a server.

A run holds a worker thread and a model for seconds to minutes, so one client starting
runs in a loop could starve everyone else. Background runs (POST /api/runs, forks, the
page's stream) count while their thread's log is open; blocking asks while they answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import Depends, Request

from serve.errors import TooManyRunsError

MAX_RUNS_PER_CLIENT = 4


class RunQuota:
    """The runs going per client address; `claim` refuses one past the limit."""

    def __init__(self, limit: int = MAX_RUNS_PER_CLIENT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._runs: dict[str, list[Callable[[], bool]]] = {}

    def admit(self, client: str, going: Callable[[], bool] | None = None) -> Callable[[], None]:
        """Count a run of `client` while `going()` is true; return a call that ends it.

        Raises:
            TooManyRunsError: If the client already has `limit` runs going.
        """
        ended = threading.Event()

        def alive() -> bool:
            return not ended.is_set() and (going is None or going())

        with self._lock:
            runs = [run for run in self._runs.get(client, []) if run()]
            if len(runs) >= self.limit:
                raise TooManyRunsError(
                    f"{client} has {len(runs)} runs going (at most {self.limit} per client); "
                    "wait for one to end (its `end` event) and start again"
                )
            self._runs[client] = [*runs, alive]
        return ended.set

    @contextmanager
    def claim(self, client: str) -> Iterator[None]:
        """Count a blocking run of `client` for the duration of the block."""
        end = self.admit(client)
        try:
            yield
        finally:
            end()


def client_of(request: Request) -> str:
    """Return the address a request came from (a FastAPI dependency)."""
    return request.client.host if request.client is not None else "unknown"


Client = Annotated[str, Depends(client_of)]
"""A route's parameter: the address the request came from."""
