"""What a server process holds for its requests: settings, the opened index and the event logs."""

from __future__ import annotations

from dataclasses import dataclass, field

from fastapi import Request

from graph_agent.systems import ask_system
from serve.events import EventLogs
from serve.schemas import RunSettings
from serve.settings import ServeSettings
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
