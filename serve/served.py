"""What a server process holds for its requests: settings, the opened index and the event logs."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request

from graph_agent.systems import ask_system
from serve.errors import ConflictError
from serve.events import EventLogs
from serve.schemas import RunSettings
from serve.settings import ServeSettings
from serve.thread_list import has_checkpoints
from state.context import Context
from tools.corpus_index import CorpusIndex


@dataclass
class Served:
    """The state the app's lifespan loads once: every request shares the index and models."""

    settings: ServeSettings
    index: CorpusIndex
    logs: EventLogs = field(default_factory=EventLogs)

    @property
    def index_dir(self) -> str:
        """Return the index folder as the library's Context spells it."""
        return str(self.settings.index_dir)

    def new_thread(self, thread_id: str | None) -> None:
        """Refuse a caller's thread id that already holds a run (a second one would mix in).

        Raises:
            ConflictError: If the thread has checkpoints or is running.
        """
        if thread_id and (
            self.logs.running(thread_id) or has_checkpoints(self.settings.index_dir, thread_id)
        ):
            raise ConflictError(
                f"thread {thread_id!r} already holds a run; replay or fork it "
                "(/api/threads), or leave thread_id out for a new one"
            )

    def context(self, system: str, run: RunSettings) -> Context:
        """Return a system's Context: FIF_* env, then the index and the page's settings."""
        overrides = {
            "index_dir": self.index_dir,
            "backend": run.backend,
            "top_k": run.k,
            "answer": run.answer,
            "max_steps": run.max_steps,
        }
        return ask_system(system).context_type.from_env(overrides)


async def served(request: Request) -> Served:
    """Return the app's Served state (a FastAPI dependency; async: no thread hop)."""
    state: Served = request.app.state.served
    return state
