"""Summaries of graph steps for the trace: one JSON object per node update, live or replayed.

The live run summarises each `stream_mode="updates"` chunk; a past run's checkpoints hold the
same updates as the results of each checkpoint's tasks, so both go through `step_summary`.
A system that runs whole (LiLaC, IRCoT, MMAPG, ReAgent) logs its node records afterwards,
each through `record_summary`. A FiF strategy carries its rung on the cost ladder, so the
page marks escalation only where the rung rose.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from nodes.fif.rules import rung_of
from tools.layered_graph import LayeredGraph

TOP_COMPONENTS = 5
TOP_DOCUMENTS = 8
TOP_LINKS = 12
FOUND_KEYS = ("retrieved", "components", "seeds")
"""Where a node record (or its `detail`) lists the components it found, first match wins."""


def step_summary(
    node: str, update: Mapping[str, Any] | None, graph: LayeredGraph | None = None
) -> dict[str, Any]:
    """Return what the trace shows of one node's update (plain JSON).

    With the graph, a traversal record also names the links it followed (document to
    document), which the page draws.
    """
    update = update or {}
    summary: dict[str, Any] = {"node": node}
    decisions = update.get("decisions") or []
    if decisions:
        summary["decision"] = _decision(decisions[-1])
    history = update.get("history") or []
    if history:
        summary["record"] = _record(history[-1], graph)
    pending = update.get("pending_step")
    if pending:
        summary["traversal"] = _record(pending, graph)
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


def record_summary(record: Mapping[str, Any], graph: LayeredGraph | None = None) -> dict[str, Any]:
    """Return what the trace shows of a node record of a system that runs whole.

    Its node, the query it searched (as the subquery), its reason and who decided, and the
    components it found with their documents (the graph's dots); no verdict, no strategy.
    """
    given = record.get("detail")
    detail: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    found = next((list(v) for k in FOUND_KEYS for v in (record.get(k), detail.get(k)) if v), [])
    ids = [str(c) for c in found if isinstance(c, str)][:TOP_COMPONENTS]
    documents = _documents(graph, ids) if graph is not None else []
    summary = {
        "node": str(record.get("node") or "step"),
        "reason": str(record.get("reason", "")),
        "decided_by": record.get("decided_by"),
        "subquery": record.get("query"),
        "hop": record.get("step"),
        "components": ids,
        "document_ids": documents[:TOP_DOCUMENTS],
        "cost": dict(record.get("cost") or {}),
    }
    return _plain(summary)


def _documents(graph: LayeredGraph, ids: list[str]) -> list[str]:
    """Return the documents of the components a record found, in order, once each."""
    docs = (graph.node(cid).doc_id for cid in ids if cid in graph)
    return list(dict.fromkeys(docs))


def rung_of_strategy(strategy: Any) -> int | None:
    """Return a full strategy's position on FiF's cost ladder (None for anything else)."""
    keys = ("doc_mode", "comp_mode", "granularity")
    if not isinstance(strategy, Mapping) or not all(k in strategy for k in keys):
        return None
    return rung_of(
        {
            "doc_mode": strategy["doc_mode"],
            "comp_mode": strategy["comp_mode"],
            "granularity": strategy["granularity"],
        }
    )


def _decision(action: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("kind", "subquery", "strategy", "anchor", "reason", "decided_by")
    return {
        **{key: action.get(key) for key in keys},
        "rung": rung_of_strategy(action.get("strategy")),
    }


def _record(record: Mapping[str, Any], graph: LayeredGraph | None) -> dict[str, Any]:
    keys = ("step", "subquery", "strategy", "anchor", "success", "answerable", "reason")
    documents = record.get("documents") or []
    found = record.get("components") or []
    return {
        **{key: record.get(key) for key in keys},
        "rung": rung_of_strategy(record.get("strategy")),
        "documents": len(documents),
        "document_ids": [d.get("id") for d in documents[:TOP_DOCUMENTS]],
        "components": [c.get("id") for c in found[:TOP_COMPONENTS]],
        "links": _links(graph, [*documents, *found]) if graph is not None else [],
    }


def _links(graph: LayeredGraph, found: list[Mapping[str, Any]]) -> list[list[str]]:
    """Return the document-to-document links a traversal followed (its hits' `via`)."""
    links: dict[tuple[str, str], None] = {}
    for hit in found:
        via = hit.get("via")
        if via and via in graph and hit.get("doc_id"):
            links[(graph.node(via).doc_id, str(hit["doc_id"]))] = None
    return [list(link) for link in links][:TOP_LINKS]


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    """Return a JSON-safe copy (tuples become lists; unknown objects their str)."""
    plain: dict[str, Any] = json.loads(json.dumps(value, default=str))
    return plain


def checkpoint_steps(
    history: list[Any], graph: LayeredGraph | None = None
) -> Iterator[dict[str, Any]]:
    """Yield the step summaries of a thread's checkpoints (oldest first).

    Each snapshot's tasks ran from that checkpoint; a finished task's result is the node's
    update, and the checkpoint id is where a fork re-runs that step.
    """
    for snapshot in history:
        checkpoint_id = str(snapshot.config["configurable"]["checkpoint_id"])
        for task in snapshot.tasks:
            if task.result is None or task.name.startswith("__"):
                continue
            summary = step_summary(task.name, task.result, graph)
            yield {**summary, "checkpoint_id": checkpoint_id}
