"""Builders of FiF state records (steps, subqueries, candidates) for the agent tests."""

from __future__ import annotations

from typing import Any

from nodes.fif.rules import LADDER
from state.fif_state import Candidate, StepRecord, Strategy, Subquery

VECTOR: Strategy = LADDER[1]
LLM_LLM: Strategy = LADDER[-1]


def found(component_id: str, score: float = 0.6) -> dict[str, Any]:
    """Return a component as a traversal returns it."""
    doc_id = component_id.split("::")[0]
    return {"id": component_id, "doc_id": doc_id, "kind": "paragraph", "score": score}


def step(
    number: int,
    subquery_index: int = 0,
    rung: int = 1,
    anchor: int | None = None,
    success: bool = False,
    *,
    subquery: str | None = None,
    components: list[str] | None = None,
    score: float = 0.6,
    answerable: bool | None = None,
    strategy: Strategy | None = None,
) -> StepRecord:
    """Return a judged traversal on a ladder rung."""
    ids = components if components is not None else [f"doc{number}::p0"]
    return {
        "step": number,
        "subquery_index": subquery_index,
        "subquery": subquery if subquery is not None else f"find target {subquery_index}",
        "strategy": strategy or LADDER[rung],
        "anchor": anchor,
        "documents": [],
        "components": [found(c, score) for c in ids],  # type: ignore[misc]
        "success": success,
        "answerable": success if answerable is None else answerable,
        "reason": "scripted",
        "decided_by": "rules",
        "notes": [],
        "cost": {},
    }


def subquery(
    index: int,
    status: str = "unknown",
    *,
    text: str | None = None,
    origin: str = "initial",
    parent: int | None = None,
) -> Subquery:
    """Return a plan item."""
    item: dict[str, Any] = {
        "index": index,
        "text": text if text is not None else f"find target {index}",
        "status": status,
        "answer": None,
        "origin": origin,
    }
    if parent is not None:
        item["parent"] = parent
    return item  # type: ignore[return-value]


def candidate(component_id: str, score: float = 0.5, via: str = "", step: int = 0) -> Candidate:
    """Return a remembered candidate."""
    kind = "image" if "::i" in component_id else "paragraph"
    doc_id = component_id.split("::")[0]
    return {
        "component_id": component_id,
        "doc_id": doc_id,
        "kind": kind,
        "score": score,
        "step": step,
        "via": via,
    }


def search_decision(rung: int = 1, subquery_index: int = 0) -> dict[str, Any]:
    """Return a recorded search decision (for replan counting)."""
    return {
        "kind": "search",
        "subquery": f"find target {subquery_index}",
        "subquery_index": subquery_index,
        "strategy": LADDER[rung],
        "anchor": None,
        "reason": "scripted",
        "decided_by": "rules",
    }


def replan_decision() -> dict[str, Any]:
    """Return a recorded replan decision."""
    return {"kind": "replan", "reason": "scripted", "decided_by": "rules"}
