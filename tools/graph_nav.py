"""Navigate the layered graph: descendants, ancestors and the link neighbourhood of documents."""

from __future__ import annotations

from collections.abc import Iterable

from state.render import content_text
from tools.layered_graph import LayeredGraph


def node_content(graph: LayeredGraph, node_id: str, max_rows: int, separator: str = "\n") -> str:
    """Return a node's text; a table's header and up to max_rows rows follow its caption."""
    view = graph.node(node_id)
    table = (view.attrs.get("header", []), view.attrs.get("rows", []))
    return content_text(view.text, view.kind, table, max_rows, separator)


def descendants(graph: LayeredGraph, node_id: str, layer: int) -> list[str]:
    """Return the nodes at `layer` under node_id (the node itself if it is at that layer)."""
    start = graph.node(node_id).layer
    if start == layer:
        return [node_id]
    if start > layer:
        raise ValueError(f"{node_id!r} is at layer {start}, above it there is no layer {layer}")
    frontier = [node_id]
    for _ in range(layer - start):
        frontier = [child for node in frontier for child in graph.children(node)]
    return frontier


def ancestors(graph: LayeredGraph, node_id: str) -> list[str]:
    """Return the containing nodes of node_id, nearest first (component, then document)."""
    view = graph.node(node_id)
    if view.layer == 2:
        return [view.attrs["component_id"], view.doc_id]
    if view.layer == 1:
        return [view.doc_id]
    return []


def component_of(graph: LayeredGraph, node_id: str) -> str:
    """Return the component a subcomponent belongs to (or the component itself)."""
    view = graph.node(node_id)
    if view.layer == 0:
        raise ValueError(f"{node_id!r} is a document, not part of a component")
    return str(view.attrs["component_id"]) if view.layer == 2 else node_id


def outgoing_links(graph: LayeredGraph, node_id: str) -> list[str]:
    """Return the documents a component or subcomponent links to."""
    return list(graph.links_from(node_id))


def link_sources(graph: LayeredGraph, doc_ids: Iterable[str]) -> list[str]:
    """Return every component and subcomponent of the documents that has outgoing links."""
    sources = []
    for doc in doc_ids:
        for component in graph.children(doc):
            sources.append(component)
            sources.extend(graph.children(component))
    return [s for s in sources if outgoing_links(graph, s)]


def neighbors(
    graph: LayeredGraph, doc_ids: Iterable[str], sources: Iterable[str] | None = None
) -> dict[str, list[str]]:
    """Map each document linked from doc_ids (via `links_to`) to the nodes that link to it.

    With `sources`, only links leaving those components/subcomponents are followed, so a
    hop can start from the exact table row or sentence that matched. Documents of the
    starting set are excluded; the mapping keeps first-seen order.
    """
    ordered = list(dict.fromkeys(doc_ids))  # not a set: iteration order must not vary by run
    start = set(ordered)
    origin = list(sources) if sources is not None else link_sources(graph, ordered)
    result: dict[str, list[str]] = {}
    for source in origin:
        for target in outgoing_links(graph, source):
            if target not in start:
                result.setdefault(target, []).append(source)
    return result


def referrers(graph: LayeredGraph, doc_ids: Iterable[str]) -> dict[str, list[str]]:
    """Map each document that links to one of doc_ids to its nodes that do (`backlinks`).

    The reverse of `neighbors`: the table whose row names a page found first. Documents of
    the starting set are excluded; first-seen order.
    """
    ordered = list(dict.fromkeys(doc_ids))
    start = set(ordered)
    result: dict[str, list[str]] = {}
    for doc in ordered:
        for source in backlinks(graph, doc):
            owner = graph.node(source).doc_id
            if owner in start:
                continue
            found = result.setdefault(owner, [])
            if source not in found:
                found.append(source)
    return result


def backlinks(graph: LayeredGraph, doc_id: str) -> list[str]:
    """Return the components and subcomponents that link to a document."""
    g = graph.g
    return [u for u in g.predecessors(doc_id) if g.edges[u, doc_id]["kind"] == "links_to"]
