"""What a checkpoint store knows about its threads: which exist, who ran them, with what settings.

Every run started by `fif ask` writes its settings (as JSON) and its graph's name into the
metadata of each checkpoint it saves, so `fif replay --resume/--fork` continues with the
settings the run had (LangGraph keeps only scalar metadata, hence the JSON string). A
thread id that already holds a run is refused for a new question unless the caller asks
to continue it, and an unknown thread or checkpoint id is answered with the valid ones.
A new thread whose run fails before its first node finishes is deleted (`discard_unstarted`).
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any, TypeVar

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, ValidationError

from state.settings import RunSettings
from tools.errors import ConfigError

logger = logging.getLogger(__name__)

S = TypeVar("S", bound=RunSettings)

CONTEXT_KEY = "fif_context"
"""Checkpoint metadata key: the run's RunSettings as JSON."""
GRAPH_KEY = "fif_graph"
"""Checkpoint metadata key: the name of the graph that wrote the checkpoint (fif, lilac, …)."""
LISTED_AT_MOST = 10
"""Ids an error message lists before it says how many more there are."""


def thread_metadata(graph_name: str, context: BaseModel) -> dict[str, str]:
    """Return the run-config metadata recording a run's graph and settings on its checkpoints."""
    return {CONTEXT_KEY: context.model_dump_json(), GRAPH_KEY: graph_name}


def listed(ids: Sequence[str]) -> str:
    """Join ids for a one-line message, at most LISTED_AT_MOST of them."""
    shown = ", ".join(ids[:LISTED_AT_MOST])
    more = len(ids) - LISTED_AT_MOST
    return f"{shown} (and {more} more)" if more > 0 else shown


def thread_ids(saver: Any) -> list[str]:
    """Return the thread ids of a SQLite checkpoint store, most recently written first."""
    try:
        rows = saver.conn.execute(
            "SELECT thread_id, MAX(checkpoint_id) AS latest FROM checkpoints "
            "GROUP BY thread_id ORDER BY latest DESC"
        ).fetchall()
    except sqlite3.OperationalError:  # a store nothing was saved to has no table yet
        return []
    return [str(row[0]) for row in rows]


def unknown_thread(thread_id: str, saver: Any, where: str) -> ConfigError:
    """Return the error for a thread id the store does not hold, listing the ones it does."""
    known = thread_ids(saver)
    hint = f"threads there, newest first: {listed(known)}" if known else "it holds no threads"
    return ConfigError(f"no thread {thread_id!r} in {where}; {hint}")


def claim_thread(saver: Any, thread_id: str | None, continue_thread: bool = False) -> str:
    """Return the thread a new question runs on: `thread_id`, or a new one when None.

    Raises:
        ConfigError: If the thread already holds a run and `continue_thread` is false (the
            message names the earlier run and the ways on), or if asked to continue
            without a thread id.
    """
    if thread_id is None:
        if continue_thread:
            raise ConfigError("--continue follows up on a run: name its thread with --thread")
        return uuid.uuid4().hex[:12]
    latest = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    if latest is None or continue_thread:
        return thread_id
    question = str(latest.checkpoint.get("channel_values", {}).get("question", ""))[:80]
    graph = latest.metadata.get(GRAPH_KEY, "a graph")
    raise ConfigError(
        f"thread {thread_id!r} already holds a run ({graph}: {question!r}); pass --continue "
        "to ask a follow-up on it (its state and budget carry over), `fif replay "
        f"{thread_id}` to resume or fork it, or leave out --thread for a new one"
    )


@contextmanager
def discard_unstarted(saver: Any, thread_id: str) -> Iterator[None]:
    """Run a graph on a thread inside this block; a new thread whose run fails unstarted is deleted.

    A run that fails in its entry node (an unknown `--doc`, a backend's missing extra) has
    saved only its input (checkpoint steps -1 and 0): nothing to resume, yet `fif replay`
    and `fif serve` would list it as a run. A thread that held checkpoints before (a
    `--continue`, a fork) or whose run got past its first node is kept, so `fif replay
    THREAD --resume` can continue from the last checkpoint, as after a crash.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    existed = saver.get_tuple(config) is not None
    try:
        yield
    except BaseException:  # cleanup only: the error propagates unchanged
        latest = None if existed else saver.get_tuple(config)
        if latest is not None and int(latest.metadata.get("step", -1)) <= 0:
            saver.delete_thread(thread_id)
            logger.info("thread %s deleted: its run failed before its first node", thread_id)
        elif latest is not None:
            logger.warning(
                "run on thread %s failed after step %s; its checkpoints are kept (`fif replay %s`)",
                thread_id,
                latest.metadata.get("step"),
                thread_id,
            )
        raise


def thread_system(saver: Any, thread_id: str) -> str:
    """Return the system that ran a thread, from its checkpoints' metadata.

    Threads written before the system was recorded are FiF's (the only system then).
    """
    metadata = _run_metadata(saver, {"configurable": {"thread_id": thread_id}})
    return str(metadata.get(GRAPH_KEY, "fif"))


def _run_metadata(saver: Any, config: RunnableConfig) -> dict[str, Any]:
    """Return the metadata of the run that wrote `config`'s checkpoint (or its thread's)."""
    saved = saver.get_tuple(config)
    metadata = dict(saved.metadata) if saved is not None else {}
    if GRAPH_KEY not in metadata:  # e.g. a fork written by update_state: the run's own record
        thread_id = config["configurable"]["thread_id"]
        # closed here, while the database is open: a half-read listing must not outlive it
        with closing(saver.list({"configurable": {"thread_id": thread_id}})) as thread:
            metadata = next((dict(c.metadata) for c in thread if GRAPH_KEY in c.metadata), metadata)
    return metadata


def recorded_context(saver: Any, config: RunnableConfig, index_dir: str, kind: type[S]) -> S:
    """Return the settings recorded on the checkpoint `config` names, as the system's type.

    The index is the one the caller names (`index_dir`), wherever the run was started.
    A thread saved before settings were recorded gets the defaults, with a warning.

    Raises:
        ConfigError: If the stored settings no longer validate.
    """
    thread_id = config["configurable"]["thread_id"]
    stored = _run_metadata(saver, config).get(CONTEXT_KEY)
    if not stored:
        logger.warning("thread %s has no stored settings; resuming with the defaults", thread_id)
    return stored_settings(kind, stored, index_dir, thread_id)


def stored_settings(kind: type[S], stored: str | None, index_dir: str, thread_id: str) -> S:
    """Return settings stored as JSON on a checkpoint (None: the defaults), on `index_dir`.

    Raises:
        ConfigError: If the stored settings no longer validate.
    """
    if not stored:
        return kind(index_dir=index_dir)
    try:
        return kind.model_validate_json(stored).model_copy(update={"index_dir": index_dir})
    except ValidationError as err:
        raise ConfigError(
            f"thread {thread_id!r}: its stored settings no longer validate "
            f"({err.errors()[0]['msg']}); fork it with explicit options or start a new thread"
        ) from err
