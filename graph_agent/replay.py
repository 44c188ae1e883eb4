"""Checkpoints of runs: a SQLite saver next to the index, listing, resuming and forking.

Each run is a thread. The Context a thread ran with is stored in the checkpoint metadata
(`graph_agent.threads`), so a replay resumes or forks with the same settings unless the
caller overrides them; a thread that holds a run takes no new question unless continued.
Listing works for FiF, ReAgent and extraction-loop threads (a ReAgent global backtrack shows
as a fork: two checkpoints with the same parent), resuming and forking for FiF.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

from graph_agent.api import RunResult, result_from_state
from graph_agent.extraction_graph import extraction_graph
from graph_agent.graph import fif_graph
from graph_agent.reagent_graph import with_checkpointer
from graph_agent.threads import (
    claim_thread,
    discard_unstarted,
    listed,
    recorded_context,
    thread_metadata,
    unknown_thread,
)
from state.context import Context
from tools.errors import ConfigError
from tools.manifest import CHECKPOINT_FILE

BUSY_TIMEOUT_S = 60.0


@contextmanager
def sqlite_checkpointer(index_dir: str | Path) -> Iterator[SqliteSaver]:
    """Open the SQLite checkpoint store that lives next to an index.

    Runs of one server write it concurrently: in WAL mode readers never wait for a writer,
    and a writer waits up to BUSY_TIMEOUT_S for another (SQLite's default, 5 s, failed runs
    as "database is locked" under 16 concurrent clients).
    """
    path = Path(index_dir) / CHECKPOINT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    connection.execute("PRAGMA journal_mode=WAL")
    try:
        yield SqliteSaver(connection)
    finally:
        connection.close()


def run_config(
    thread_id: str, context: Context, checkpoint_id: str | None = None, graph_name: str = "fif"
) -> dict[str, Any]:
    """Return the LangGraph config of a thread, recording its graph and Context in metadata."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable, "metadata": thread_metadata(graph_name, context)}


def ask_checkpointed(
    question: str, context: Context, thread_id: str | None = None, continue_thread: bool = False
) -> RunResult:
    """Run FiF with SQLite checkpoints next to the index; the thread id is in the result.

    Raises:
        ConfigError: If `thread_id` already holds a run and `continue_thread` is false.
    """
    with sqlite_checkpointer(context.index_dir) as saver:
        thread_id = claim_thread(saver, thread_id, continue_thread)
        graph = fif_graph(saver)
        started = time.perf_counter()
        with discard_unstarted(saver, thread_id):
            final = graph.invoke(
                {"question": question}, run_config(thread_id, context), context=context
            )
    return result_from_state(final, thread_id, (time.perf_counter() - started) * 1000.0)


REPLAY_GRAPHS: dict[str, Callable[[Any], Any]] = {
    "fif": fif_graph,
    "reagent": with_checkpointer,
    "extraction": extraction_graph,
}
"""System name → the compile function whose graph reads that system's checkpoints."""


@dataclass(frozen=True)
class CheckpointInfo:
    """One checkpoint of a thread, with what had just happened and what runs next."""

    checkpoint_id: str
    step: int
    next_nodes: tuple[str, ...]
    last_action: str
    traversals: int
    created_at: str
    parent_id: str | None = None
    """The checkpoint this one follows; two with one parent are a fork."""


def list_checkpoints(
    index_dir: str | Path, thread_id: str, system: str = "fif"
) -> list[CheckpointInfo]:
    """Return a thread's checkpoints (every branch), oldest first."""
    if system not in REPLAY_GRAPHS:
        raise ConfigError(f"unknown system {system!r}; choose one of {', '.join(REPLAY_GRAPHS)}")
    with sqlite_checkpointer(index_dir) as saver:
        graph = REPLAY_GRAPHS[system](saver)
        history = list(graph.get_state_history({"configurable": {"thread_id": thread_id}}))
        if not history:
            raise unknown_thread(thread_id, saver, str(index_dir))
    return [_info(snapshot) for snapshot in reversed(history)]


def _info(snapshot: Any) -> CheckpointInfo:
    values = snapshot.values or {}
    if "decisions" not in values and values.get("trace"):
        return _trace_info(snapshot)
    decisions = values.get("decisions", [])
    last = decisions[-1] if decisions else None
    if last is None:
        action = "plan" if values.get("subqueries") else "start"
    elif last["kind"] == "search":
        strategy = last["strategy"]
        action = (
            f"search {last['subquery'][:50]!r} {strategy['doc_mode']}/"
            f"{strategy['comp_mode']}/{strategy['granularity']} anchor={last.get('anchor')}"
        )
    else:
        action = f"{last['kind']}: {last['reason'][:60]}"
    return CheckpointInfo(
        checkpoint_id=str(snapshot.config["configurable"]["checkpoint_id"]),
        step=int((snapshot.metadata or {}).get("step", -1)),
        next_nodes=tuple(snapshot.next),
        last_action=action,
        traversals=len(values.get("history", [])),
        created_at=str(snapshot.created_at or ""),
        parent_id=_parent(snapshot),
    )


def _parent(snapshot: Any) -> str | None:
    parent = snapshot.parent_config
    return str(parent["configurable"]["checkpoint_id"]) if parent else None


def _trace_info(snapshot: Any) -> CheckpointInfo:
    """Describe a checkpoint of a graph keeping a `trace` of node records (ReAgent, extraction)."""
    values = snapshot.values
    last = values["trace"][-1]
    return CheckpointInfo(
        checkpoint_id=str(snapshot.config["configurable"]["checkpoint_id"]),
        step=int((snapshot.metadata or {}).get("step", -1)),
        next_nodes=tuple(snapshot.next),
        last_action=f"{last['node']}: {last['reason'][:80]}",
        traversals=int(values.get("step", 0)),
        created_at=str(snapshot.created_at or ""),
        parent_id=_parent(snapshot),
    )


def stored_context(
    index_dir: str | Path, thread_id: str, checkpoint_id: str | None = None
) -> Context:
    """Return the Context a FiF thread ran with at a checkpoint (default: its latest)."""
    with sqlite_checkpointer(index_dir) as saver:
        config = _checked_config(saver, str(index_dir), thread_id, checkpoint_id)
        return recorded_context(saver, config, str(index_dir))


def _checked_config(
    saver: SqliteSaver, index_dir: str, thread_id: str, checkpoint_id: str | None
) -> RunnableConfig:
    """Return the config of a thread's checkpoint, or raise naming the valid ids."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    if saver.get_tuple(config) is None:
        raise unknown_thread(thread_id, saver, index_dir)
    if checkpoint_id is None:
        return config
    known = [c.config["configurable"]["checkpoint_id"] for c in saver.list(config)]
    if checkpoint_id not in known:
        raise ConfigError(
            f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}; its checkpoints, "
            f"newest first: {listed(known)} (`fif replay {thread_id}` shows each one)"
        )
    return {"configurable": {"thread_id": thread_id, "checkpoint_id": checkpoint_id}}


def resume(
    index_dir: str | Path,
    thread_id: str,
    checkpoint_id: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> RunResult:
    """Continue a FiF thread from its last checkpoint, or fork it from an earlier one.

    The run gets the Context stored at that checkpoint, with `overrides` (explicit CLI
    options) on top; the index is always `index_dir`.

    Raises:
        ConfigError: If the thread or the checkpoint is unknown (the message lists the
            valid ids), or the thread is not a FiF run.
    """
    with sqlite_checkpointer(index_dir) as saver:
        at = _checked_config(saver, str(index_dir), thread_id, checkpoint_id)
        context = recorded_context(saver, at, str(index_dir))
        if overrides:
            context = Context.model_validate({**context.model_dump(), **overrides})
        graph = fif_graph(saver)
        config = run_config(thread_id, context, checkpoint_id)
        if checkpoint_id is None and not graph.get_state(config).next:
            snapshot = graph.get_state(config)
            return result_from_state(snapshot.values, thread_id, 0.0)
        started = time.perf_counter()
        final = graph.invoke(None, config, context=context)
    return result_from_state(final, thread_id, (time.perf_counter() - started) * 1000.0)
