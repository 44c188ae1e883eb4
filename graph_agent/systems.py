"""The systems `fif ask --system` runs, by name: one registry of checkpointed `ask` functions.

Each entry turns a question, the shared `Context` the CLI built and a thread id into a
`RunResult`. Graph systems run with SQLite checkpoints next to the index, so every run is
a thread; the dense baseline is one search and has no thread state. The graphs are
imported inside their entries: importing one compiles it, which another system need not
pay for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from graph_agent.api import RunResult
from state.context import Context
from state.extraction_state import ExtractionContext
from state.fif_state import Ranked, ranked_entry
from state.ircot_state import IrcotContext
from state.lilac_state import LilacContext
from state.mmapg_state import MMAPGContext
from state.reagent_state import ReAgentContext
from tools.cost import CostMeter
from tools.errors import ConfigError
from tools.questions import require_question

C = TypeVar("C", bound=Context)


class AskFunction(Protocol):
    """Run a system on a question with a context, on a thread (None: a new one)."""

    def __call__(
        self, question: str, context: Context, thread_id: str | None, continue_thread: bool = False
    ) -> RunResult:
        """Return the run's result; a used thread is refused unless `continue_thread`."""
        ...


def as_context(kind: type[C], context: Context) -> C:
    """Return the context as a system's own Context subclass (its extra fields at defaults)."""
    return context if isinstance(context, kind) else kind(**context.model_dump())


def ask_fif(
    question: str, context: Context, thread_id: str | None, continue_thread: bool = False
) -> RunResult:
    """Run FiF with SQLite checkpoints (`fif replay` can resume or fork the thread)."""
    from graph_agent.replay import ask_checkpointed

    return ask_checkpointed(question, context, thread_id, continue_thread)


GraphAsk = Callable[..., RunResult]
"""A graph's `ask_*(question, context, thread_id=, checkpointer=)`."""


def checkpointed(load: Callable[[], GraphAsk], kind: type[Context]) -> AskFunction:
    """Return an AskFunction running a graph's ask with SQLite checkpoints next to the index.

    `load` imports the graph module on first use (importing one compiles its graph); the
    shared Context becomes the graph's own Context subclass.
    """

    def ask(
        question: str, context: Context, thread_id: str | None, continue_thread: bool = False
    ) -> RunResult:
        from graph_agent.replay import sqlite_checkpointer
        from graph_agent.threads import claim_thread, discard_unstarted

        with sqlite_checkpointer(context.index_dir) as saver:
            thread = claim_thread(saver, thread_id, continue_thread)
            settings = as_context(kind, context)
            with discard_unstarted(saver, thread):
                return load()(question, settings, thread_id=thread, checkpointer=saver)

    return ask


def _lilac() -> GraphAsk:
    from graph_agent.lilac_graph import ask_lilac

    return ask_lilac


def _ircot() -> GraphAsk:
    from graph_agent.ircot_graph import ask_ircot

    return ask_ircot


def _mmapg() -> GraphAsk:
    from graph_agent.mmapg_graph import ask_mmapg

    return ask_mmapg


def _reagent() -> GraphAsk:
    from graph_agent.reagent_graph import ask_reagent

    return ask_reagent


def _extraction() -> GraphAsk:
    from graph_agent.extraction_graph import ask_extraction

    return ask_extraction


def ask_dense(
    question: str, context: Context, thread_id: str | None, continue_thread: bool = False
) -> RunResult:
    """Rank components in one dense search (subcomponent granularity); answer if asked.

    One search keeps no thread state, so there is nothing to continue or refuse.
    """
    from graph_agent.api import answer_from_components
    from tools.corpus_index import open_index
    from tools.search import dense_search

    question = require_question(question)
    started = time.perf_counter()
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    found = dense_search(index, question, "subcomponent", context.top_k, meter)
    ranking: list[Ranked] = [
        ranked_entry(n.node_id, n.doc_id, n.kind, round(n.score, 6)) for n in found
    ]
    answer = None
    if context.answer:
        ids = [n.node_id for n in found]
        answer = answer_from_components(index, question, ids, context, meter)
    return RunResult(
        ranking=ranking,
        answer=answer,
        cost=meter.as_dict(),
        thread_id=thread_id or "",
        latency_ms=(time.perf_counter() - started) * 1000.0,
    )


@dataclass(frozen=True)
class AskSystem:
    """A system `fif ask` runs: the Context type it reads (FIF_* env included) and its ask."""

    context_type: type[Context]
    run: AskFunction


ASK_SYSTEMS: dict[str, AskSystem] = {
    "fif": AskSystem(Context, ask_fif),
    "lilac": AskSystem(LilacContext, checkpointed(_lilac, LilacContext)),
    "ircot": AskSystem(IrcotContext, checkpointed(_ircot, IrcotContext)),
    "mmapg": AskSystem(MMAPGContext, checkpointed(_mmapg, MMAPGContext)),
    "reagent": AskSystem(ReAgentContext, checkpointed(_reagent, ReAgentContext)),
    "extraction": AskSystem(ExtractionContext, checkpointed(_extraction, ExtractionContext)),
    "dense": AskSystem(Context, ask_dense),
}
"""Every system `fif ask --system` knows, by name."""


def ask_system(name: str) -> AskSystem:
    """Return a system of the registry.

    Raises:
        ConfigError: If the name is unknown; the message lists the known ones.
    """
    if name not in ASK_SYSTEMS:
        known = ", ".join(ASK_SYSTEMS)
        raise ConfigError(f"unknown system {name!r} for `fif ask --system`; known: {known}")
    return ASK_SYSTEMS[name]


def ablation_switches(system: str, names: list[str] | None) -> dict[str, bool]:
    """Return the Context switches `fif ask --ablation` turns on for a system.

    The valid names are the system's Context fields described as an ablation.

    Raises:
        ConfigError: If a name is not one of them; the message lists the valid ones.
    """
    fields = ask_system(system).context_type.model_fields
    valid = [
        name
        for name, field in fields.items()
        if field.annotation in (bool, "bool") and (field.description or "").startswith("Ablation")
    ]
    for name in names or []:
        if name not in valid:
            known = ", ".join(valid) or "none"
            raise ConfigError(f"unknown --ablation {name!r} for system {system!r}; valid: {known}")
    return {name: True for name in names or []}
