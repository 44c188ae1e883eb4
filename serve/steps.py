"""Summaries of graph steps for the trace: one JSON object per node update, live or replayed.

The live run summarises each `stream_mode="updates"` chunk; a past run's checkpoints hold the
same updates as the results of each checkpoint's tasks, so both go through `step_summary`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

TOP_COMPONENTS = 5


def step_summary(node: str, update: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return what the trace shows of one node's update (plain JSON)."""
    update = update or {}
    summary: dict[str, Any] = {"node": node}
    decisions = update.get("decisions") or []
    if decisions:
        summary["decision"] = _decision(decisions[-1])
    history = update.get("history") or []
    if history:
        summary["record"] = _record(history[-1])
    pending = update.get("pending_step")
    if pending:
        summary["traversal"] = _record(pending)
    if update.get("subqueries"):
        summary["subqueries"] = [
            {"index": s.get("index"), "text": s.get("text"), "status": s.get("status")}
            for s in update["subqueries"]
        ]
    if update.get("ranking"):
        summary["ranking"] = [r["component_id"] for r in update["ranking"]]
    if update.get("answer"):
        summary["answer"] = update["answer"]
    if update.get("trace"):  # graphs keeping node records (ReAgent, extraction)
        last = update["trace"][-1]
        summary["reason"] = str(last.get("reason", ""))
    if update.get("fallbacks"):
        summary["fallbacks"] = list(update["fallbacks"])
    summary["cost"] = dict(update.get("cost") or {})
    return _plain(summary)


def _decision(action: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("kind", "subquery", "strategy", "anchor", "reason", "decided_by")
    return {key: action.get(key) for key in keys}


def _record(record: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("step", "subquery", "strategy", "anchor", "success", "answerable", "reason")
    found = record.get("components") or []
    return {
        **{key: record.get(key) for key in keys},
        "documents": len(record.get("documents") or []),
        "components": [c.get("id") for c in found[:TOP_COMPONENTS]],
    }


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    """Return a JSON-safe copy (tuples become lists; unknown objects their str)."""
    plain: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return plain


def checkpoint_steps(history: list[Any]) -> Iterator[dict[str, Any]]:
    """Yield the step summaries of a thread's checkpoints (oldest first).

    Each snapshot's tasks ran from that checkpoint; a finished task's result is the node's
    update, and the checkpoint id is where a fork re-runs that step.
    """
    for snapshot in history:
        checkpoint_id = str(snapshot.config["configurable"]["checkpoint_id"])
        for task in snapshot.tasks:
            if task.result is None or task.name.startswith("__"):
                continue
            yield {**step_summary(task.name, task.result), "checkpoint_id": checkpoint_id}
