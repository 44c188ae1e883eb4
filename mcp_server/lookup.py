"""Resolve the ids and texts a tool call names, with errors that say what would work.

An unknown id gets the closest ids of the index (a component id is matched against its
document's components when its document exists, else against the document ids) and
the tool to find real ones with.
"""

from __future__ import annotations

import difflib

from state.ids import SEPARATOR
from tools.errors import FiFError
from tools.layered_graph import LayeredGraph
from tools.node_view import NodeView

SUGGESTIONS = 5


class ToolInputError(FiFError):
    """A tool argument names nothing in the index or is out of range; the message says why."""


def require_text(value: str, field: str) -> str:
    """Return the stripped text, or raise ToolInputError when it is empty."""
    stripped = " ".join(value.split())
    if not stripped:
        raise ToolInputError(f"{field} is empty; pass the words to look for")
    return stripped


def document(graph: LayeredGraph, doc_id: str) -> NodeView:
    """Return a document's node, or raise ToolInputError naming the closest document ids."""
    if doc_id in graph and graph.node(doc_id).layer == 0:
        return graph.node(doc_id)
    if doc_id in graph:
        owner = graph.node(doc_id).doc_id
        raise ToolInputError(
            f"{doc_id!r} is a component, not a document; its document is {owner!r} "
            "(or call get_component with this id)"
        )
    close = _closest(doc_id, list(graph.documents()))
    raise ToolInputError(f"no document {doc_id!r} in the index; {_hint(close, 'search')}")


def component(graph: LayeredGraph, component_id: str) -> NodeView:
    """Return a component or subcomponent node, or raise ToolInputError with close ids."""
    if component_id in graph:
        view = graph.node(component_id)
        if view.layer == 0:
            raise ToolInputError(
                f"{component_id!r} is a document; call get_document for it, or pass one of "
                f"its components ({', '.join(graph.children(component_id)[:3])}, …)"
            )
        return view
    doc_id = component_id.split(SEPARATOR, 1)[0]
    if doc_id in graph and graph.node(doc_id).layer == 0:
        pool = graph.children(doc_id)
        close = _closest(component_id, pool)
        where = f"document {doc_id!r} has {len(pool)} components"
        raise ToolInputError(f"no component {component_id!r}; {where}; {_hint(close, 'doc')}")
    close = _closest(doc_id, list(graph.documents()))
    raise ToolInputError(
        f"no component {component_id!r}: no document {doc_id!r} in the index; "
        f"{_hint(close, 'search')}"
    )


def _closest(wanted: str, pool: list[str]) -> list[str]:
    return difflib.get_close_matches(wanted, pool, n=SUGGESTIONS, cutoff=0.5)


def _hint(close: list[str], fallback: str) -> str:
    found = f"close ids: {', '.join(close)}" if close else "no id is close"
    how = (
        "get_document lists a document's component ids"
        if fallback == "doc"
        else "search returns component and document ids"
    )
    return f"{found}; {how}"
