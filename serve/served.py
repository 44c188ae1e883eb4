"""What a server process holds for its requests: settings, the opened indices and event logs.

Each index keeps its own event logs and its own thread store (the SQLite checkpoints beside
it), so threads are per index; requests pick an index with `?index=NAME` (default: the first).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Query, Request

from graph_agent.registry import get_system
from serve.errors import ConflictError, NotFoundError
from serve.events import EventLogs
from serve.quota import RunQuota
from serve.schemas import PageSettings
from serve.settings import INDEX_NAME, ServeSettings
from serve.thread_list import has_checkpoints
from state.settings import RunSettings
from tools.corpus_index import CorpusIndex, open_index, reopen_index
from tools.index_lock import build_stamp

logger = logging.getLogger(__name__)


@dataclass
class ServedIndex:
    """One opened index: its name, folder, the shared CorpusIndex and its threads' event logs."""

    name: str
    path: Path
    index: CorpusIndex
    logs: EventLogs = field(default_factory=EventLogs)
    quota: RunQuota = field(default_factory=RunQuota)
    """Runs going per client; the app gives every index of a server the same one."""
    stamp: tuple[str, int, int] | None = None
    """The manifest's stamp when the index was opened (tools.index_lock.build_stamp)."""

    def __post_init__(self) -> None:
        """Record the stamp of the index as opened."""
        if self.stamp is None:
            self.stamp = build_stamp(self.path)

    @property
    def index_dir(self) -> str:
        """Return the index folder as the library's RunSettings spells it."""
        return str(self.path)

    def new_thread(self, thread_id: str | None) -> None:
        """Refuse a caller's thread id that already holds a run (a second one would mix in).

        Raises:
            ConflictError: If the thread has checkpoints or is running.
        """
        if thread_id and (self.logs.running(thread_id) or has_checkpoints(self.path, thread_id)):
            raise ConflictError(
                f"thread {thread_id!r} already holds a run in index {self.name!r}; replay or "
                "fork it (/api/threads), or leave thread_id out for a new one"
            )

    def context(self, system: str, run: PageSettings) -> RunSettings:
        """Return a system's settings: FIF_* env, then the index and the page's settings."""
        overrides = {
            "index_dir": self.index_dir,
            "backend": run.backend,
            "top_k": run.k,
            "answer": run.answer,
            "max_steps": run.max_steps,
        }
        return get_system(system).context(overrides)

    def link(self, url: str) -> str:
        """Return an API URL of this index (`?index=NAME` appended)."""
        return f"{url}{'&' if '?' in url else '?'}index={self.name}"


@dataclass
class Served:
    """The state the app's lifespan loads once: every request shares the indices and models."""

    settings: ServeSettings
    indices: dict[str, ServedIndex]
    """By name, in `--index` order; the first is the default."""
    _reloading: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def current(self, entry: ServedIndex) -> ServedIndex:
        """Return the entry ready to read: the version it opened, or the one a build published.

        A build writes a staging version (tools.index_versions; on a Chroma server, its own
        collections: tools.server_versions), so reads go on from the opened one meanwhile.
        """
        if build_stamp(entry.path) != entry.stamp:
            with self._reloading:
                if build_stamp(entry.path) != entry.stamp:
                    self._reload(entry)
        return entry

    def _reload(self, changed: ServedIndex) -> None:
        """Open a newly published index; the others are re-shared (the open cache was reset)."""
        stamp = build_stamp(changed.path)
        changed.index = reopen_index(changed.path)
        changed.index.queries.start_helper()
        changed.stamp = stamp
        for entry in self.indices.values():
            if entry is not changed:
                entry.index = open_index(entry.path)
        logger.info("reopened index %r after a build", changed.name)

    def pick(self, name: str | None) -> ServedIndex:
        """Return the named index (None: the first).

        Raises:
            NotFoundError: If no index has that name; the message lists the valid ones.
        """
        if name is None:
            return next(iter(self.indices.values()))
        if name not in self.indices:
            raise NotFoundError(
                f"no index {name!r} on this server; valid: {', '.join(self.indices)} "
                "(GET /api/indices)"
            )
        return self.indices[name]


IndexName = Annotated[
    str | None,
    Query(
        alias="index",
        pattern=INDEX_NAME.pattern,
        description="Which index (GET /api/indices); default: the first one served.",
    ),
]


async def served(request: Request) -> Served:
    """Return the app's Served state (a FastAPI dependency; async: no thread hop)."""
    state: Served = request.app.state.served
    return state


async def served_index(request: Request, index: IndexName = None) -> ServedIndex:
    """Return the index a request names with `?index=NAME` (a FastAPI dependency)."""
    state: Served = request.app.state.served
    return state.current(state.pick(index))


ServerState = Annotated[Served, Depends(served)]
"""A route's parameter: the server's state."""
IndexState = Annotated[ServedIndex, Depends(served_index)]
"""A route's parameter: the index the request names (`?index=NAME`)."""
