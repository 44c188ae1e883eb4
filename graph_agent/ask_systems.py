"""The graphs `fif ask --system` runs, by name: each one's Context class and ask function.

Every run is checkpointed in the SQLite store next to the index, so the printed thread id
names a real thread. Graph modules are imported on first use: importing one compiles it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graph_agent.api import RunResult
from state.context import Context
from tools.errors import ConfigError

Ask = Callable[[str, Context, str | None], RunResult]
"""Run one question with a context on a thread (None: a new one)."""


@dataclass(frozen=True)
class AskSystem:
    """A graph `fif ask` can run: the Context subclass it reads and its ask function."""

    context_type: type[Context]
    ask: Ask


def _fif() -> AskSystem:
    from graph_agent.replay import ask_checkpointed

    return AskSystem(Context, ask_checkpointed)


def checkpointed(run: Callable[..., RunResult], context_type: type[Context]) -> Ask:
    """Wrap a graph's `ask_*(question, context, thread_id=, checkpointer=)` with SQLite."""
    from graph_agent.replay import sqlite_checkpointer

    def ask(question: str, context: Context, thread: str | None) -> RunResult:
        if not isinstance(context, context_type):
            raise ConfigError(f"this system needs a {context_type.__name__}")
        with sqlite_checkpointer(context.index_dir) as saver:
            return run(question, context, thread_id=thread, checkpointer=saver)

    return ask


def _lilac() -> AskSystem:
    from graph_agent.lilac_graph import ask_lilac
    from state.lilac_state import LilacContext

    return AskSystem(LilacContext, checkpointed(ask_lilac, LilacContext))


def _mmapg() -> AskSystem:
    from graph_agent.mmapg_graph import ask_mmapg
    from state.mmapg_state import MMAPGContext

    return AskSystem(MMAPGContext, checkpointed(ask_mmapg, MMAPGContext))


ASK_SYSTEMS: dict[str, Callable[[], AskSystem]] = {
    "fif": _fif,
    "lilac": _lilac,
    "mmapg": _mmapg,
}
"""System name → a loader of its AskSystem."""


def ask_system(name: str) -> AskSystem:
    """Return the named system.

    Raises:
        ConfigError: If the name is unknown; the message lists the known ones.
    """
    loader = ASK_SYSTEMS.get(name)
    if loader is None:
        known = ", ".join(sorted(ASK_SYSTEMS))
        raise ConfigError(f"unknown system {name!r} for fif ask; known systems: {known}")
    return loader()
