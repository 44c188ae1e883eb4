"""Shared plumbing for LLM decisions: the caller for a context, prompt rendering, fallbacks.

Every LLM decision in FiF goes through `decide`: it runs the LLM path when the context
has a chat model and budget left, and otherwise (or when the LLM fails after repair and
retries) runs the offline twin, recording who decided and why.
"""

from __future__ import annotations

import base64
import logging
import mimetypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from state.context import Context
from state.views import llm_calls, tokens
from tools.cost import CostMeter
from tools.graph_nav import node_content
from tools.layered_graph import LayeredGraph
from tools.llm_calls import LLMFailure, NotRouted, StructuredCaller, caller_for

logger = logging.getLogger(__name__)

R = TypeVar("R")
CANDIDATE_CHARS = 500
MAX_TABLE_ROWS = 12


@dataclass(frozen=True)
class Decided:
    """A decision with who made it ("llm", "offline", "offline-fallback") and why."""

    value: Any
    decided_by: str
    note: str = ""


def llm_budget_left(state: Mapping[str, Any], context: Context) -> bool:
    """Tell whether another LLM call fits the run's call and token budgets.

    Any graph's state works: only its `cost` tally is read.
    """
    return llm_calls(state) < context.max_llm_calls and tokens(state) < context.max_tokens


def decide(
    state: Mapping[str, Any],
    context: Context,
    meter: CostMeter,
    llm_path: Callable[[StructuredCaller], R] | None,
    offline_path: Callable[[], R],
) -> Decided:
    """Run the LLM path when possible, else (or after an LLM failure) the offline twin."""
    return decide_within(llm_budget_left(state, context), context, meter, llm_path, offline_path)


def decide_within(
    budget_left: bool,
    context: Context,
    meter: CostMeter,
    llm_path: Callable[[StructuredCaller], R] | None,
    offline_path: Callable[[], R],
) -> Decided:
    """Run the LLM path if the context has a model and the caller's budget check passed.

    Graphs with their own state (LILaC, MMAPG) check their budget and call this; FiF's
    nodes go through `decide`, which checks FiF's state.
    """
    if llm_path is None or context.backend == "offline":
        return Decided(offline_path(), "offline")
    if not budget_left:
        return Decided(offline_path(), "offline-fallback", "LLM budget used up")
    try:
        return Decided(llm_path(caller_for(context)), "llm")
    except NotRouted as routed:  # this backend leaves the decision to the offline twin
        return Decided(offline_path(), "offline", str(routed))
    except LLMFailure as failure:
        logger.warning("falling back to the offline decision: %s", failure)
        meter.fallbacks += 1
        return Decided(offline_path(), "offline-fallback", str(failure))


class Fallbacks(TypedDict, total=False):
    """The state key every node may add: decisions taken by an offline twin instead."""

    fallbacks: list[str]


def fallbacks_of(node: str, *decisions: Decided) -> Fallbacks:
    """Return the update recording decisions that fell back to their offline twin.

    It is empty when nothing fell back, so a node's update keeps only what changed.
    """
    notes = [
        f"{node}: offline fallback ({d.note})"
        for d in decisions
        if d.decided_by == "offline-fallback"
    ]
    return {"fallbacks": notes} if notes else {}


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
    """Render candidates as a 0-based numbered list."""
    return "\n".join(f"{i}: {describe(graph, node_id)}" for i, node_id in enumerate(node_ids))


def with_images(
    text: str, graph: LayeredGraph, node_ids: Sequence[str], context: Context
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
    "LLMFailure",
    "caller_for",
    "decide",
    "decide_within",
    "describe",
    "numbered",
    "valid_indices",
    "with_images",
]
