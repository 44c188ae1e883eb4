"""Checkpoints of runs: a SQLite saver next to the index, listing, resuming and forking.

Each run is a thread. The system and the settings a thread ran with are stored in the
checkpoint metadata (`graph_agent.threads`), so a replay lists, resumes or forks a thread of
any system without being told which, with the same settings unless the caller overrides
them; a thread that holds a run takes no new question unless continued. A ReAgent global
backtrack shows as a fork: two checkpoints with the same parent.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite import SqliteSaver

from graph_agent.registry import SystemSpec, get_system
from graph_agent.results import RunResult, result_from_state
from graph_agent.threads import (
    listed,
    recorded_context,
    thread_metadata,
    thread_system,
    unknown_thread,
)
from state.settings import RunSettings
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
    thread_id: str, context: RunSettings, checkpoint_id: str | None = None, graph_name: str = "fif"
) -> dict[str, Any]:
    """Return the LangGraph config of a thread, recording its graph and settings in metadata."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable, "metadata": thread_metadata(graph_name, context)}


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


def list_checkpoints(index_dir: str | Path, thread_id: str) -> list[CheckpointInfo]:
    """Return a thread's checkpoints (every branch), oldest first, whatever system ran it."""
    with sqlite_checkpointer(index_dir) as saver:
        spec = _thread_spec(saver, str(index_dir), thread_id)
        graph = spec.compiled(saver)
        history = list(graph.get_state_history({"configurable": {"thread_id": thread_id}}))
    return [_info(snapshot) for snapshot in reversed(history)]


def thread_system_of(index_dir: str | Path, thread_id: str) -> str:
    """Return the name of the system that ran a thread.

    Raises:
        ConfigError: If the thread is unknown (the message lists the known ones).
    """
    with sqlite_checkpointer(index_dir) as saver:
        return _thread_spec(saver, str(index_dir), thread_id).name


def _thread_spec(saver: SqliteSaver, index_dir: str, thread_id: str) -> SystemSpec:
    """Return the spec of the system whose run a thread holds."""
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    if saver.get_tuple(config) is None:
        raise unknown_thread(thread_id, saver, index_dir)
    return get_system(thread_system(saver, thread_id))


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
        last_action=f"{last.get('node', 'step')}: {str(last.get('reason', ''))[:80]}",
        traversals=int(values.get("step", 0)),
        created_at=str(snapshot.created_at or ""),
        parent_id=_parent(snapshot),
    )


def stored_context(
    index_dir: str | Path, thread_id: str, checkpoint_id: str | None = None
) -> RunSettings:
    """Return the settings a thread ran with at a checkpoint (default: its latest)."""
    with sqlite_checkpointer(index_dir) as saver:
        config = _checked_config(saver, str(index_dir), thread_id, checkpoint_id)
        kind = _thread_spec(saver, str(index_dir), thread_id).context_type
        return recorded_context(saver, config, str(index_dir), kind)


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
    """Continue a thread from its last checkpoint, or fork it from an earlier one.

    The run gets the system and settings stored at that checkpoint, with `overrides`
    (explicit CLI options) on top; the index is always `index_dir`. Resuming a finished run
    runs nothing and returns its result with `finished=True`.

    Raises:
        ConfigError: If the thread or the checkpoint is unknown (the message lists the
            valid ids).
    """
    with sqlite_checkpointer(index_dir) as saver:
        at = _checked_config(saver, str(index_dir), thread_id, checkpoint_id)
        spec = _thread_spec(saver, str(index_dir), thread_id)
        context = recorded_context(saver, at, str(index_dir), spec.context_type)
        if overrides:
            context = spec.context_type.model_validate({**context.model_dump(), **overrides})
        graph = spec.compiled(saver)
        config = {**run_config(thread_id, context, checkpoint_id, spec.name),
                  **spec.run_config(context)}  # fmt: skip
        snapshot = graph.get_state(config)
        if checkpoint_id is None and has_finished(snapshot):
            return replace(_result(spec, snapshot.values, thread_id, 0.0), finished=True)
        started = time.perf_counter()
        final = graph.invoke(None, config, context=context)
    return _result(spec, final, thread_id, (time.perf_counter() - started) * 1000.0)


def has_finished(snapshot: Any) -> bool:
    """Tell whether a thread's latest checkpoint ends its run.

    A run killed after a node saved its writes but before the next checkpoint leaves a
    checkpoint whose tasks all hold their writes: LangGraph reports no next node for it,
    yet the run has not finished (resuming applies the writes and goes on).
    """
    return not snapshot.next and not snapshot.tasks


def _result(
    spec: SystemSpec, values: Mapping[str, Any], thread_id: str, latency_ms: float
) -> RunResult:
    return result_from_state(values, thread_id, latency_ms, spec.history_key)
