"""Run a system on a question (or fork a thread) in the background, feeding the thread's event log.

Graphs that one stream runs whole (`STREAMED`) stream their steps from the compiled graph
over the same SQLite checkpointer `fif ask` uses; the others run through the registry's ask
(ReAgent's, whose global backtracking forks the thread between invocations) and log their
step records once they finish. Every run records its graph's name on its checkpoints
(`graph_agent.threads.GRAPH_KEY`), as `fif ask` does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from graph_agent.registry import SYSTEMS, get_system
from graph_agent.replay import run_config, sqlite_checkpointer
from graph_agent.systems import run_system
from graph_agent.threads import GRAPH_KEY, discard_unstarted
from serve.errors import ConflictError
from serve.events import EventLogs
from serve.steps import checkpoint_steps, step_summary
from serve.views import ranked_cards
from state.settings import RunSettings
from tools.layered_graph import LayeredGraph

logger = logging.getLogger(__name__)

"""Graphs whose whole run is one `stream` call, so their steps show live."""


@dataclass(frozen=True)
class RunRequest:
    """One run to start: which thread, system, question and settings; a fork names a checkpoint."""

    thread_id: str
    system: str
    question: str
    context: RunSettings
    checkpoint_id: str | None = None
    subquery: str | None = None
    """For a fork before a traversal: the subquery that traversal searches instead."""


def streams(system: str) -> bool:
    """Tell whether a system's steps stream live (else they are logged when it finishes)."""
    return get_system(system).streams


def start_run(logs: EventLogs, graph: LayeredGraph, request: RunRequest) -> threading.Thread:
    """Open the thread's log and run the request in a daemon thread; return that thread.

    Raises:
        ConflictError: If a run of that thread is still going.
    """
    if not logs.open(request.thread_id):
        raise ConflictError(f"thread {request.thread_id!r} is running; wait for its end event")
    logs.append(
        request.thread_id,
        "thread",
        {
            "thread_id": request.thread_id,
            "system": request.system,
            "question": request.question,
            "fork_of": request.checkpoint_id,
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
    try:
        if streams(request.system):
            final = _streamed(logs, graph, request)
            candidates, history = final.get("candidates", {}), final.get("history", [])
        else:
            result = run_system(
                request.system, request.question, request.context, request.thread_id
            )
            final = {"ranking": result.ranking, "answer": result.answer, "cost": result.cost}
            candidates, history = {}, result.history
            for record in result.history:
                summary = step_summary("step", {"history": [record]}, graph)
                logs.append(request.thread_id, "step", summary)
        logs.append(request.thread_id, "result", result_payload(graph, final, candidates, history))
        ended = {"latency_ms": round((time.perf_counter() - started) * 1000.0, 1)}
    except Exception as error:  # any failure ends this run only: recorded in its log and here
        logger.warning("run %s failed: %s: %s", request.thread_id, type(error).__name__, error)
        logs.append(request.thread_id, "error", {"message": f"{type(error).__name__}: {error}"})
    finally:
        logs.append(request.thread_id, "end", ended)


def _streamed(logs: EventLogs, graph: LayeredGraph, request: RunRequest) -> dict[str, Any]:
    """Stream the graph's updates into the log; return the thread's final state values."""
    with sqlite_checkpointer(request.context.index_dir) as saver:
        compiled = get_system(request.system).compiled(saver)
        config = run_config(
            request.thread_id, request.context, request.checkpoint_id, request.system
        )
        if request.subquery:
            config = _edited(compiled, config, request.subquery)
        graph_input = None if request.checkpoint_id else {"question": request.question}
        checkpoint_id = request.checkpoint_id
        with discard_unstarted(saver, request.thread_id):
            for mode, chunk in compiled.stream(
                graph_input, config, context=request.context, stream_mode=["updates", "checkpoints"]
            ):
                if mode == "checkpoints":
                    checkpoint_id = chunk["config"]["configurable"]["checkpoint_id"]
                    continue
                for node, update in chunk.items():
                    summary = {**step_summary(node, update, graph), "checkpoint_id": checkpoint_id}
                    logs.append(request.thread_id, "step", summary)
        values: dict[str, Any] = compiled.get_state(config).values
        return values


def _edited(compiled: Any, config: dict[str, Any], subquery: str) -> dict[str, Any]:
    """Branch a checkpoint before a traversal with another subquery; return the branch's config.

    The edit is written as the orchestrator's decision (`update_state(as_node=...)`), so the
    graph routes to the traverser as it would have, and the trace shows who decided it.
    """
    action = compiled.get_state(config).values["next_action"]
    edited = {
        **action,
        "subquery": subquery,
        "reason": f"subquery edited in fif serve (was {action['subquery']!r})",
        "decided_by": "user",
    }
    at = {**config, "configurable": {"checkpoint_ns": "", **config["configurable"]}}
    branch = compiled.update_state(at, {"next_action": edited}, as_node="orchestrator")
    checkpoint_id = branch["configurable"]["checkpoint_id"]
    return {**config, "configurable": {**config["configurable"], "checkpoint_id": checkpoint_id}}


def result_payload(
    graph: LayeredGraph,
    final: Mapping[str, Any],
    candidates: Mapping[str, Any],
    history: list[Any],
) -> dict[str, Any]:
    """Return the `result` event: ranked cards with why each ranked, the answer and the cost."""
    return {
        "results": ranked_cards(graph, final.get("ranking", []), candidates, history),
        "answer": final.get("answer"),
        "cost": dict(final.get("cost", {})),
    }


def rebuild_log(logs: EventLogs, graph: LayeredGraph, index_dir: str, thread_id: str) -> bool:
    """Fill a thread's log from its checkpoints (a run this process did not see); False if none."""
    found = thread_history(index_dir, thread_id)
    if found is None:
        return False
    system, history = found
    values = history[0].values or {}
    logs.open(thread_id)
    question = str(values.get("question", ""))
    logs.append(
        thread_id, "thread", {"thread_id": thread_id, "system": system, "question": question}
    )
    for summary in checkpoint_steps(list(reversed(history)), graph):
        logs.append(thread_id, "step", summary)
    candidates, records = values.get("candidates", {}), values.get("history", [])
    logs.append(thread_id, "result", result_payload(graph, values, candidates, records))
    logs.append(thread_id, "end", {"replayed": True})
    return True


def thread_history(index_dir: str, thread_id: str) -> tuple[str, list[Any]] | None:
    """Return the system of a thread and its checkpoints (newest first); None if it has none.

    The system is the graph its checkpoints record (`GRAPH_KEY`); a thread saved before
    graphs were recorded is recognised by its state: FiF keeps `decisions`, ReAgent and the
    extraction loop a `trace`.
    """
    config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    with sqlite_checkpointer(index_dir) as saver:
        metadata = [dict(saved.metadata) for saved in saver.list(config)]  # read whole
        recorded = next((m[GRAPH_KEY] for m in metadata if GRAPH_KEY in m), None)
        replayable = [name for name, spec in SYSTEMS.items() if spec.replayable]
        guesses = [recorded] if recorded is not None else replayable
        for system in guesses:
            if system not in replayable:
                return None
            history = list(SYSTEMS[system].compiled(saver).get_state_history(config))
            values = (history[0].values or {}) if history else {}
            looks_like = "decisions" in values if system == "fif" else "trace" in values
            if history and (recorded is not None or looks_like):
                return system, history
    return None
