"""Planning-graph node records for MMAPG tests, built the way the nodes build them."""

from __future__ import annotations

from typing import Any

from state.mmapg_state import Evidence, NodeStatus, NodeType, PlanNode


def evidence(component_id: str, score: float, subcomponent: str = "", **extra: Any) -> Evidence:
    """Return a candidate record of a component (its document is the id's prefix)."""
    doc_id = component_id.split("::")[0]
    item: Evidence = {
        "component_id": component_id,
        "doc_id": doc_id,
        "kind": "paragraph",
        "score": score,
        "pool": "text",
        "evidence": subcomponent or component_id,
        "note": "",
    }
    return {**item, **extra}  # type: ignore[typeddict-item]


def node(
    node_id: int,
    kind: NodeType,
    parents: list[int],
    text: str = "",
    status: NodeStatus = "open",
    found: list[Evidence] | None = None,
) -> PlanNode:
    """Return a planning-graph node."""
    return {
        "id": node_id,
        "type": kind,
        "parents": parents,
        "instruction": text,
        "content": text if status != "no_result" else "no result",
        "status": status,
        "found": found or [],
        "others": [],
        "detail": {},
        "decided_by": "offline",
    }


def question(node_id: int, text: str, parents: list[int] | None = None) -> PlanNode:
    """Return a Question node."""
    return node(node_id, "question", parents or [], text)


def retrieval(
    node_id: int, parent: int, text: str, found: list[Evidence] | None = None
) -> PlanNode:
    """Return a Retrieval node: found if it kept anything, else "no result"."""
    status: NodeStatus = "found" if found else "no_result"
    return node(node_id, "retrieval", [parent], text, status, found)
