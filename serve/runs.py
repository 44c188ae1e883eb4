"""Run a system on a question (or fork a thread) in the background, feeding the thread's event log.

Systems whose spec streams (graph_agent.registry) stream their steps from the compiled graph
over the same SQLite checkpointer `fif ask` uses; the others run through the registry's ask
(ReAgent's, whose global backtracking forks the thread between invocations) and log their
step records once they finish. A fork of any system's thread streams its graph from the
checkpoint it leaves, into its own log (`<thread>~<run>`), so the run it left keeps its
log. Every run records its graph's name on its checkpoints (`graph_agent.threads.GRAPH_KEY`),
as `fif ask` does.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from graph_agent.registry import get_system
from graph_agent.replay import run_config, sqlite_checkpointer
from graph_agent.systems import run_system
from graph_agent.threads import discard_unstarted
from serve.branch_logs import result_payload
from serve.errors import ConflictError
from serve.events import EventLogs
from serve.steps import record_summary, step_summary
from state.settings import RunSettings
from tools.corpus_index import open_index
from tools.index_pins import pinned_index
from tools.layered_graph import LayeredGraph

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRequest:
    """One run to start: which thread, system, question and settings; a fork names a checkpoint."""

    thread_id: str
    system: str
    question: str
    context: RunSettings
    checkpoint_id: str | None = None
    edit: dict[str, Any] = field(default_factory=dict)
    """For a fork before a traversal: what that traversal takes instead (`subquery`,
    `strategy`), written as the orchestrator's decision."""
    log_key: str = ""
    """The event log of this run: the thread id for a new run, `<thread>~<run>` for a fork."""
    fork: dict[str, Any] = field(default_factory=dict)
    """For a fork: what the `thread` event says of where it left (branch, step)."""

    @property
    def key(self) -> str:
        """Return the key of the run's event log."""
        return self.log_key or self.thread_id


def streams(system: str) -> bool:
    """Tell whether a system's steps stream live (else they are logged when it finishes)."""
    return get_system(system).streams


def start_run(logs: EventLogs, graph: LayeredGraph, request: RunRequest) -> threading.Thread:
    """Open the thread's log and run the request in a daemon thread; return that thread.

    Raises:
        ConflictError: If a run of that thread is still going.
    """
    if not logs.open(request.key):
        raise ConflictError(f"run {request.key!r} is running; wait for its end event")
    logs.append(
        request.key,
        "thread",
        {
            "thread_id": request.thread_id,
            "system": request.system,
            "question": request.question,
            "fork_of": request.checkpoint_id,
            **request.fork,
        },
    )
    worker = threading.Thread(
        target=_run, args=(logs, graph, request), name=f"run-{request.thread_id}", daemon=True
    )
    worker.start()
    return worker


def _run(logs: EventLogs, graph: LayeredGraph, request: RunRequest) -> None:
    """Run and log; the log always ends, and a failure is an `error` event before the end."""
    started = time.perf_counter()
    ended: dict[str, Any] = {"failed": True}
    head: dict[str, Any] = {}
    try:
        if streams(request.system) or request.checkpoint_id:
            final, head_id = _streamed(logs, graph, request)
            candidates, history = final.get("candidates", {}), final.get("history", [])
            head = {"head": head_id}
        else:
            result = run_system(
                request.system, request.question, request.context, request.thread_id
            )
            final = {"ranking": result.ranking, "answer": result.answer, "cost": result.cost}
            candidates, history = {}, result.history
            for record in result.history:
                logs.append(request.key, "step", record_summary(record, graph))
        payload = result_payload(graph, final, candidates, history) | head
        logs.append(request.key, "result", payload)
        ended = {"latency_ms": round((time.perf_counter() - started) * 1000.0, 1)}
    except Exception as error:  # any failure ends this run only: recorded in its log and here
        logger.warning("run %s failed: %s: %s", request.thread_id, type(error).__name__, error)
        logs.append(request.key, "error", {"message": f"{type(error).__name__}: {error}"})
    finally:
        logs.append(request.key, "end", ended)


def _streamed(
    logs: EventLogs, graph: LayeredGraph, request: RunRequest
) -> tuple[dict[str, Any], str | None]:
    """Stream the graph's updates into the log; return the state at the run's head and its id.

    The head is the last checkpoint this run wrote: a fork's result is its own, not the
    state at the checkpoint it left from, nor another branch's written meanwhile.
    """
    where = (request.context.index_dir, request.context.chroma_url)
    with (
        pinned_index(*where, open_index(*where)),  # a reload mid-run changes nothing
        sqlite_checkpointer(request.context.index_dir) as saver,
    ):
        compiled = get_system(request.system).compiled(saver)
        config = run_config(
            request.thread_id, request.context, request.checkpoint_id, request.system
        )
        if request.edit:
            config = _edited(compiled, config, request.edit)
        graph_input = None if request.checkpoint_id else {"question": request.question}
        checkpoint_id = config["configurable"].get("checkpoint_id")
        with discard_unstarted(saver, request.thread_id):
            for mode, chunk in compiled.stream(
                graph_input, config, context=request.context, stream_mode=["updates", "checkpoints"]
            ):
                if mode == "checkpoints":
                    checkpoint_id = chunk["config"]["configurable"]["checkpoint_id"]
                    continue
                for node, update in chunk.items():
                    summary = {**step_summary(node, update, graph), "checkpoint_id": checkpoint_id}
                    logs.append(request.key, "step", summary)
        at = {"configurable": {"thread_id": request.thread_id, "checkpoint_id": checkpoint_id}}
        values: dict[str, Any] = compiled.get_state(at).values
        return values, checkpoint_id


def _edited(compiled: Any, config: dict[str, Any], edit: dict[str, Any]) -> dict[str, Any]:
    """Branch a checkpoint before a traversal with another subquery or strategy.

    The edit is written as the orchestrator's decision (`update_state(as_node=...)`), so the
    graph routes to the traverser as it would have, and the trace shows who decided it.
    Returns the config of the new branch's first checkpoint.
    """
    action = compiled.get_state(config).values["next_action"]
    changed = {key: value for key, value in edit.items() if value}
    was = ", ".join(f"{key} {action.get(key)!r}" for key in changed)
    edited = {
        **action,
        **changed,
        "reason": f"edited in fif serve (was {was})",
        "decided_by": "user",
    }
    at = {**config, "configurable": {"checkpoint_ns": "", **config["configurable"]}}
    branch = compiled.update_state(at, {"next_action": edited}, as_node="orchestrator")
    checkpoint_id = branch["configurable"]["checkpoint_id"]
    return {**config, "configurable": {**config["configurable"], "checkpoint_id": checkpoint_id}}
