"""The browsing tools as plain functions: a component, a document, a page of a PDF.

Ids are the graph's own (stable across reloads of the same index); pages are
zero-indexed as everywhere in FiF (page 0 is the PDF's first page).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_agent.render import snippet
from mcp_server import lookup
from mcp_server.budget import cut, fill, ids_within, room_left
from mcp_server.lookup import ToolInputError
from mcp_server.results import ComponentBrief, ComponentDetail, DocumentDetail, PageDetail
from mcp_server.settings import ServerSettings
from mcp_server.tools import content_text, pages_of, place
from tools.graph_nav import outgoing_links
from tools.layered_graph import LayeredGraph

MAX_LISTED_IDS = 50
"""Children and linked ids listed per component at most (a long table has many rows)."""
ID_SHARE = 4
"""A component's child ids take at most 1/ID_SHARE of max_chars; its text comes first."""
FIRST_WORDS_CHARS = 120


def get_component(settings: ServerSettings, component_id: str, max_chars: int) -> ComponentDetail:
    """Return a component's (or subcomponent's) full text and its neighbourhood."""
    graph = settings.index().graph
    view = lookup.component(graph, lookup.require_text(component_id, "component_id"))
    node_id = view.node_id
    children = graph.children(node_id)
    edges = graph.g
    result = ComponentDetail(
        **place(graph, node_id),
        text="",
        parent_id=str(view.attrs["component_id"]) if view.layer == 2 else view.doc_id,
        children_ids=ids_within(children, max_chars // ID_SHARE, MAX_LISTED_IDS),
        children_total=len(children),
        links_to_documents=ids_within(
            outgoing_links(graph, node_id), max_chars // ID_SHARE, MAX_LISTED_IDS
        ),
        refers_to=_references(graph, edges.successors(node_id), node_id, outgoing=True),
        referred_by=_references(graph, edges.predecessors(node_id), node_id, outgoing=False),
    )
    text = content_text(graph, node_id)
    shown = cut(text, room_left(result, max_chars))
    notes = []
    if shown != text:
        notes.append(f"text cut at {len(shown)} of {len(text)} characters; raise max_chars")
        if children:
            notes.append("or read its parts with get_component on children_ids")
    if len(result.children_ids) < len(children):
        notes.append(f"first {len(result.children_ids)} of {len(children)} children listed")
    return result.model_copy(
        update={"text": shown, "truncated": bool(notes), "note": "; ".join(notes)}
    )


def _references(
    graph: LayeredGraph, nodes: Iterable[str], node_id: str, outgoing: bool
) -> list[str]:
    """Return the refers_to neighbours of a node, one way."""
    found = []
    for other in nodes:
        edge = (node_id, other) if outgoing else (other, node_id)
        if graph.g.edges[edge]["kind"] == "refers_to":
            found.append(str(other))
    return found[:MAX_LISTED_IDS]


def get_document(
    settings: ServerSettings, doc_id: str, offset: int, max_chars: int
) -> DocumentDetail:
    """Return a document's title, summary and components from `offset` that fit max_chars."""
    graph = settings.index().graph
    view = lookup.document(graph, lookup.require_text(doc_id, "doc_id"))
    components = graph.children(view.node_id)
    if offset > len(components):
        raise ToolInputError(
            f"offset {offset} is past the {len(components)} components of {view.node_id!r}; "
            f"use 0..{max(len(components) - 1, 0)}"
        )
    linked = {doc: None for c in components for doc in outgoing_links(graph, c)}
    result = DocumentDetail(
        doc_id=view.node_id,
        title=graph.title(view.node_id),
        url=str(view.attrs.get("url") or ""),
        summary=cut(view.text, max_chars // 8),
        page_count=view.attrs.get("page_count"),
        components_total=len(components),
        offset=offset,
        next_offset=None,
        components=[],
        links_to_documents=list(linked)[:MAX_LISTED_IDS],
    )
    briefs = [_brief(graph, c, snippet(graph, c, FIRST_WORDS_CHARS)) for c in components[offset:]]
    kept, truncated = fill(briefs, room_left(result, max_chars), "text")
    next_offset = offset + len(kept) if truncated else None
    note = (
        f"components {offset}..{offset + len(kept) - 1} of {len(components)} listed; "
        f"call again with offset={next_offset}"
        if truncated
        else ""
    )
    update = {"components": kept, "next_offset": next_offset, "truncated": truncated}
    return result.model_copy(update={**update, "note": note})


def get_page(settings: ServerSettings, doc_id: str, page: int, max_chars: int) -> PageDetail:
    """Return the components printed on a zero-indexed page of a PDF, in reading order."""
    graph = settings.index().graph
    view = lookup.document(graph, lookup.require_text(doc_id, "doc_id"))
    page_count = int(view.attrs.get("page_count") or 0)
    if not page_count:
        raise ToolInputError(
            f"document {view.node_id!r} has no pages (it was not built from a PDF); "
            "read it with get_document"
        )
    if not 0 <= page < page_count:
        raise ToolInputError(
            f"page {page} is out of range for {view.node_id!r}: pages are zero-indexed, "
            f"0..{page_count - 1} ({page_count} pages)"
        )
    on_page = [c for c in graph.children(view.node_id) if _covers(graph, c, page)]
    briefs = [_brief(graph, c, _text_on_page(graph, c, page)) for c in on_page]
    result = PageDetail(
        doc_id=view.node_id,
        title=graph.title(view.node_id),
        page=page,
        page_count=page_count,
        components=[],
    )
    kept, truncated = fill(briefs, room_left(result, max_chars), "text")
    note = ""
    if truncated:
        note = f"{len(kept)} of {len(briefs)} components shown (the last may be cut); "
        note += "read one whole with get_component, or raise max_chars"
    return result.model_copy(update={"components": kept, "truncated": truncated, "note": note})


def _covers(graph: LayeredGraph, node_id: str, page: int) -> bool:
    span = graph.pages(node_id)
    return span is not None and span[0] <= page <= span[1]


def _text_on_page(graph: LayeredGraph, component: str, page: int) -> str:
    """Return a component's text; a table crossing pages gives its header and this page's rows."""
    view = graph.node(component)
    rows = [r for r in graph.children(component) if graph.node(r).kind == "row"]
    span = graph.pages(component)
    if view.kind != "table" or not rows or span is None or span[0] == span[1]:
        return content_text(graph, component)
    header = " | ".join(view.attrs.get("header", []))
    here = [graph.node(r).text for r in rows if _covers(graph, r, page)]
    return "\n".join(part for part in (view.text, header, *here) if part)


def _brief(graph: LayeredGraph, component: str, text: str) -> ComponentBrief:
    view = graph.node(component)
    return ComponentBrief(
        component_id=component,
        type=view.kind,
        section=list(graph.section(component)),
        pages=pages_of(graph, component),
        text=text,
    )
