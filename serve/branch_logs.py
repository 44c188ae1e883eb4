"""Past threads read back from their checkpoints: system, branches, logs and fork settings.

Which system ran a thread, its branches, each branch's event log, and the settings a fork
of a checkpoint runs with.

A thread's log rebuilt here follows one branch only (by default the original run), so a
fork never mixes its steps into the run it left; every branch is replayable on its own,
after a restart too, because the checkpoints are the record. Works for any system whose
graph the registry names (graph_agent.registry); the system is the one its checkpoints
record (`graph_agent.threads.GRAPH_KEY`).
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from graph_agent.registry import SYSTEMS, get_system
from graph_agent.replay import has_finished, sqlite_checkpointer
from graph_agent.threads import CONTEXT_KEY, GRAPH_KEY, stored_settings
from serve.branches import Branch, branches, checkpoint_of, fork_step
from serve.errors import NotFoundError
from serve.events import EventLogs
from serve.grounding import grounded
from serve.steps import checkpoint_steps
from serve.views import ranked_cards
from state.settings import RunSettings
from tools.layered_graph import LayeredGraph

FORK_KEYS = ("branch", "fork_of", "fork_branch", "fork_step")
TOP_IDS = 5
"""Component ids of each branch's ranking that the branch tree lists."""


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


def thread_branches(index_dir: str, thread_id: str) -> tuple[str, list[Branch]]:
    """Return a thread's system and branches.

    Raises:
        NotFoundError: If the index's store holds no replayable checkpoints of the thread.
    """
    found = thread_history(index_dir, thread_id)
    if found is None:
        raise NotFoundError(
            f"no replayable checkpoints for thread {thread_id!r}; GET /api/threads lists them"
        )
    return found[0], branches(found[1])


def pick_branch(found: list[Branch], thread_id: str, number: int) -> Branch:
    """Return branch `number` of a thread, or raise naming the valid numbers."""
    if not 0 <= number < len(found):
        raise NotFoundError(
            f"thread {thread_id!r} has branches 0–{len(found) - 1}, not {number}; "
            f"GET /api/threads/{thread_id}/branches lists them"
        )
    return found[number]


def branch_steps(branch: Branch, graph: LayeredGraph) -> list[dict[str, Any]]:
    """Return the step summaries of one branch, oldest first (with the checkpoint of each)."""
    return list(checkpoint_steps(list(branch.path), graph))


def rebuild_log(
    logs: EventLogs, graph: LayeredGraph, index_dir: str, thread_id: str, number: int = 0
) -> str | None:
    """Fill the log of one branch of a thread from its checkpoints; return its log key.

    Branch 0 (the original run) is logged under the thread id, a fork under
    `<thread>~b<number>`. None if the thread has no checkpoints here.
    """
    if thread_history(index_dir, thread_id) is None:
        return None
    system, found = thread_branches(index_dir, thread_id)
    branch = pick_branch(found, thread_id, number)
    key = thread_id if number == 0 else f"{thread_id}~b{number}"
    values = branch.head.values or {}
    steps = branch_steps(branch, graph)
    logs.open(key)
    logs.append(key, "thread", _thread_event(thread_id, system, values, branch, found, graph))
    for summary in steps:
        logs.append(key, "step", summary)
    final = result_payload(graph, values, values.get("candidates", {}), values.get("history", []))
    logs.append(key, "result", final | {"head": branch.head_id, "branch": number})
    logs.append(key, "end", {"replayed": True})
    return key


def _thread_event(
    thread_id: str,
    system: str,
    values: dict[str, Any],
    branch: Branch,
    found: list[Branch],
    graph: LayeredGraph,
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "thread_id": thread_id,
        "system": system,
        "question": str(values.get("question", "")),
        "branch": branch.number,
    }
    if branch.fork_of is not None:
        parent = found[branch.fork_of]
        event |= {
            "fork_of": branch.fork_checkpoint,
            "fork_branch": branch.fork_of,
            "fork_step": fork_step(branch, parent, branch_steps(parent, graph)),
        }
    return event


def branch_rows(
    index_dir: str, thread_id: str, graph: LayeredGraph
) -> tuple[str, list[dict[str, Any]]]:
    """Return a thread's system and one row per branch: where it left, its answer and ranking."""
    system, found = thread_branches(index_dir, thread_id)
    rows = []
    for branch in found:
        values = branch.head.values or {}
        steps = branch_steps(branch, graph)
        event = _thread_event(thread_id, system, values, branch, found, graph)
        rows.append(
            {
                **{k: event[k] for k in FORK_KEYS if k in event},
                "head": branch.head_id,
                "steps": len(steps),
                "finished": has_finished(branch.head),
                "answer": values.get("answer"),
                "ranking": [r["component_id"] for r in values.get("ranking") or []][:TOP_IDS],
                "edited": _edit(branch),
            }
        )
    return system, rows


def _edit(branch: Branch) -> dict[str, Any] | None:
    """Return what a user changed at the fork (subquery, strategy) over the decision it left."""
    if branch.fork_of is None:
        return None
    for before, snapshot in zip(branch.path, branch.path[1:], strict=False):
        if (snapshot.metadata or {}).get("source") != "update":
            continue
        was = (before.values or {}).get("next_action") or {}
        now = (snapshot.values or {}).get("next_action") or {}
        changed = {k: now.get(k) for k in ("subquery", "strategy") if now.get(k) != was.get(k)}
        return changed or None
    return None


def result_payload(
    graph: LayeredGraph, final: dict[str, Any], candidates: Any, history: list[Any]
) -> dict[str, Any]:
    """Return the `result` event: ranked cards with why each ranked, the answer and the cost.

    `grounding` says which ranked components hold the answer, or that the run found none.
    """
    cards = ranked_cards(graph, final.get("ranking") or [], candidates or {}, history)
    answer = final.get("answer")
    return {
        "results": cards,
        "answer": answer,
        "grounding": grounded(graph, answer, cards, history),
        "cost": dict(final.get("cost") or {}),
    }


def fork_context(system: str, path: list[Any], thread_id: str, index_dir: str) -> RunSettings:
    """Return the settings a branch ran with up to a checkpoint, as its system's own type.

    `path` is the branch's snapshots up to the fork point; the newest one that recorded
    settings wins (a fork records its own, e.g. a smaller budget).

    Raises:
        ConfigError: If the stored settings no longer validate.
    """
    stored = next(
        (s.metadata[CONTEXT_KEY] for s in reversed(path) if CONTEXT_KEY in (s.metadata or {})),
        None,
    )
    return stored_settings(get_system(system).context_type, stored, index_dir, thread_id)


def fork_point(found: list[Branch], checkpoint_id: str) -> tuple[Branch, int] | None:
    """Return the oldest branch holding a checkpoint and its position there; None if none."""
    for branch in found:
        for at, snapshot in enumerate(branch.path):
            if checkpoint_of(snapshot) == checkpoint_id:
                return branch, at
    return None
