"""Run any registered system on a question, the way `fif ask`, `fif serve` and `fif mcp` do.

Graph systems run with SQLite checkpoints next to the index, so every run is a thread
(`fif replay` lists, resumes and forks it); the dense baseline is one search and keeps no
thread. Which systems exist, with what settings, is the registry's (graph_agent.registry).
"""

from __future__ import annotations

import time

from graph_agent.registry import get_system
from graph_agent.results import RunResult
from state.core import Ranked
from state.settings import RunSettings
from tools.cost import CostMeter
from tools.errors import ConfigError
from tools.questions import require_question


def run_system(
    name: str,
    question: str,
    context: RunSettings,
    thread_id: str | None = None,
    continue_thread: bool = False,
    one_question: bool = False,
) -> RunResult:
    """Run a system on a question; a graph system runs on a checkpointed thread.

    `context` becomes the system's own settings type (its extra fields at their defaults
    when it is of another type). `one_question`: the process ends with this run (`fif
    ask`), so its few query texts are embedded in-process: an embedding helper would load
    its encoder (~1 s) after the run is done, sharing the cores with it meanwhile.

    Raises:
        ConfigError: If the system is unknown, or `thread_id` already holds a run and
            `continue_thread` is false.
    """
    spec = get_system(name)
    settings = spec.own_settings(context)
    if not spec.replayable:
        return ask_dense(question, settings, thread_id)
    from graph_agent.replay import sqlite_checkpointer
    from graph_agent.threads import claim_thread, discard_unstarted
    from tools.corpus_index import open_index
    from tools.index_pins import pinned_index

    where = (settings.index_dir, settings.chroma_url)
    index = open_index(*where)
    if one_question:
        index.queries.helper = None
    with (
        pinned_index(*where, index),  # every step reads this version
        sqlite_checkpointer(settings.index_dir) as saver,
    ):
        thread = claim_thread(saver, thread_id, continue_thread)
        with discard_unstarted(saver, thread):
            return spec.ask()(question, settings, thread_id=thread, checkpointer=saver)


def ask_dense(question: str, context: RunSettings, thread_id: str | None = None) -> RunResult:
    """Rank components in one dense search (subcomponent granularity); answer if asked.

    One search keeps no thread state, so there is nothing to continue or refuse.
    """
    from nodes.core.answering import answer_text, decide_answer
    from tools.corpus_index import open_index
    from tools.search import dense_search

    question = require_question(question)
    started = time.perf_counter()
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    found = dense_search(index, question, "subcomponent", context.top_k, meter)
    ranking: list[Ranked] = [n.ranked() for n in found]
    answer = None
    if context.answer:
        ids = [n.node_id for n in found]
        answer = answer_text(decide_answer(index, question, ids, context, meter))
    return RunResult(
        ranking=ranking,
        answer=answer,
        cost=meter.as_dict(),
        thread_id=thread_id or "",
        latency_ms=(time.perf_counter() - started) * 1000.0,
    )


def ablation_switches(system: str, names: list[str] | None) -> dict[str, bool]:
    """Return the RunSettings switches `fif ask --ablation` turns on for a system.

    The valid names are the system's RunSettings fields described as an ablation.

    Raises:
        ConfigError: If a name is not one of them; the message lists the valid ones.
    """
    fields = get_system(system).context_type.model_fields
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
