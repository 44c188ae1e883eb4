"""Step traces of graph systems, compacted for `OUT/traces.jsonl` and read back by qid.

A FiF step record lists every document and component it found with scores and evidence; the
sidecar keeps their ids only (in rank order), drops per-step costs (results.jsonl has the
run's total) and keeps the rest: subquery, strategy, anchor, success, reason, who decided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DROPPED_STEP_FIELDS = frozenset({"cost"})
"""Step fields left out of the sidecar: per-step costs, summed in the result line already."""


def compact_step(step: Mapping[str, Any]) -> dict[str, Any]:
    """Return one step record with found-item lists reduced to their ids, in order."""
    out: dict[str, Any] = {}
    for key, value in step.items():
        if key in DROPPED_STEP_FIELDS:
            continue
        if isinstance(value, list) and value and all(_has_id(item) for item in value):
            out[key] = [item["id"] for item in value]
        else:
            out[key] = value
    return out


def _has_id(item: Any) -> bool:
    return isinstance(item, Mapping) and "id" in item


def compact_trace(history: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return a run's step records, each compacted by `compact_step`."""
    return [compact_step(step) for step in history]
