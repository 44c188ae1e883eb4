"""Shared plumbing for LLM decisions: prompt rendering of candidates, index validators.

The decision protocol itself (`decide`, `decide_within`, `Decided`, `fallbacks_of`) lives
in `nodes.core.decision` and is re-exported here for the nodes that import it from this module.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from nodes.core.decision import (
    Decided,
    Fallbacks,
    decide,
    decide_within,
    fallbacks_of,
    llm_budget_left,
)
from nodes.core.prompts import as_data
from state.settings import RunSettings
from tools.graph_nav import node_content
from tools.layered_graph import LayeredGraph
from tools.llm_calls import LLMFailure, caller_for

logger = logging.getLogger(__name__)

R = TypeVar("R")
CANDIDATE_CHARS = 500
MAX_TABLE_ROWS = 12


def describe(graph: LayeredGraph, node_id: str, limit: int = CANDIDATE_CHARS) -> str:
    """Render one component or document as prompt text: id, kind, title, content."""
    view = graph.node(node_id)
    if view.layer == 0:
        return f"[document] {graph.title(node_id)} — {view.text[:limit]}"
    text = node_content(graph, node_id, MAX_TABLE_ROWS)
    if len(text) > limit * 2:
        text = text[: limit * 2] + "…"
    return f"[{view.kind}] {graph.title(view.doc_id)} — {text}"


def numbered(graph: LayeredGraph, node_ids: Sequence[str]) -> str:
    """Render candidates as a 0-based numbered list, quoted as a data block."""
    listing = "\n".join(f"{i}: {describe(graph, node_id)}" for i, node_id in enumerate(node_ids))
    return as_data(listing, "numbered corpus components") if listing else ""


def with_images(
    text: str, graph: LayeredGraph, node_ids: Sequence[str], context: RunSettings
) -> str | list[dict[str, Any]]:
    """Attach image components as image content blocks when the model can see images."""
    if not context.vision:
        return text
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for i, node_id in enumerate(node_ids):
        path = graph.node(node_id).attrs.get("image_path")
        if not path or not Path(path).is_file():
            continue
        mime = mimetypes.guess_type(path)[0] or "image/png"
        data = base64.b64encode(Path(path).read_bytes()).decode()
        blocks.append({"type": "text", "text": f"Image of candidate {i}:"})
        blocks.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}})
    return blocks


def valid_indices(limit: int) -> Callable[[Any], None]:
    """Return a validator rejecting selections whose indices fall outside the list."""

    def check(parsed: Any) -> None:
        items = getattr(parsed, "selection", None) or getattr(parsed, "ranking", None) or []
        bad = [item.index for item in items if item.index >= limit]
        if bad:
            raise ValueError(f"indices {bad} do not exist; use 0..{limit - 1}")

    return check


__all__ = [
    "Decided",
    "Fallbacks",
    "fallbacks_of",
    "llm_budget_left",
    "LLMFailure",
    "caller_for",
    "decide",
    "decide_within",
    "describe",
    "numbered",
    "valid_indices",
    "with_images",
]
