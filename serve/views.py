"""JSON views of the layered graph for the page: result cards, component pages, why a hit ranked.

Pure functions over a LayeredGraph and plain dicts, so they are tested without a server.
Pages are zero-indexed, as in the graph, the MCP tools and evaluation (`DOC#PAGE`); only the
page adds one when it prints them. `pages` is a node's `[first, last]` page span; a node of
a PDF whose file the index recorded also carries `pdf_page`, its first page, which
`/api/documents/{doc_id}/pages/{pdf_page}.png` renders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph_agent.render import snippet
from serve.page_boxes import region_label, region_lines
from tools.graph_nav import backlinks, outgoing_links
from tools.layered_graph import LayeredGraph
from tools.page_regions import node_region

SNIPPET_CHARS = 240
PAGE_COMPONENTS = 120
"""Components shown around a passage: its PDF pages, or the start of its HTML document."""


def card(graph: LayeredGraph, node_id: str) -> dict[str, Any]:
    """Return what a result row shows of a node: type, document, section, pages, snippet.

    `region` is the node's box on its first page ({"doc", "page", "bbox"}, PDF points,
    top-left origin; tools.page_regions), None outside PDFs; `region_label` says what the
    box is ("Figure 3", "table", "line in Figure 3"; serve.page_boxes).
    """
    view = graph.node(node_id)
    pages = view.pages
    served_pdf = "source" in graph.node(view.doc_id).attrs
    return {
        "component_id": node_id,
        "type": view.kind,
        "doc_id": view.doc_id,
        "title": graph.title(view.doc_id),
        "section": list(graph.section(node_id)) if view.layer > 0 else [],
        "pages": list(pages) if pages else None,
        "pdf_page": pages[0] if pages and served_pdf else None,
        "region": node_region(graph, node_id),
        "region_label": region_label(graph, node_id),
        "snippet": snippet(graph, node_id, SNIPPET_CHARS),
    }


def search_why(graph: LayeredGraph, node_id: str, evidence: str) -> str:
    """Explain a one-shot search hit: the passage inside it that earned the score."""
    if not evidence or evidence == node_id or evidence not in graph:
        return "its own text matched the query"
    kind = graph.node(evidence).kind
    return f"its {kind} {evidence} matched: {snippet(graph, evidence, 120)}"


def run_why(
    graph: LayeredGraph,
    candidate: Mapping[str, Any] | None,
    history: Sequence[Mapping[str, Any]],
) -> str:
    """Explain an agent's hit: the step and subquery that found it, and its chain partner.

    A candidate reached over a link carries `via`, the (sub)component whose link led to it;
    that source is the chain partner the reranker may rank it with.
    """
    if candidate is None:
        return "ranked by the system (no step record)"
    step = int(candidate.get("step", -1))
    record = next((r for r in history if r.get("step") == step), None)
    found = f"found at step {step}"
    if record is not None:
        strategy = record.get("strategy") or {}
        how = "/".join(str(strategy.get(key, "")) for key in ("doc_mode", "comp_mode"))
        found += f" for subquery {str(record.get('subquery', ''))[:80]!r} ({how})"
    via = candidate.get("via")
    if via and via in graph:
        found += f"; reached by a link from {via} ({snippet(graph, via, 80)})"
    return found


def ranked_cards(
    graph: LayeredGraph,
    ranking: Sequence[Mapping[str, Any]],
    candidates: Mapping[str, Mapping[str, Any]],
    history: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Return a run's ranking as result cards with score and why each ranked."""
    cards = []
    for rank, row in enumerate(ranking, start=1):
        node_id = str(row["component_id"])
        if node_id not in graph:
            continue  # a system may rank an id of another build; nothing to show for it
        candidate = candidates.get(node_id)
        cards.append(
            {
                **card(graph, node_id),
                "rank": rank,
                "score": float(row.get("score", 0.0)),
                "why": run_why(graph, candidate, history) if candidates else "",
                "partner": (candidate or {}).get("via") or None,
            }
        )
    return cards


def component_page(graph: LayeredGraph, node_id: str) -> dict[str, Any]:
    """Return a component with its content, neighbours and the page it sits on.

    `page` lists the components printed on the same PDF pages (or the document's first
    PAGE_COMPONENTS for HTML and bundle documents) so the page can highlight the passage;
    `highlight` is the component to mark and, for a subcomponent, its own text;
    `region_lines` are the lines read inside its region ({"component_id", "text", "bbox"}).
    """
    view = graph.node(node_id)
    owner = view.attrs["component_id"] if view.layer == 2 else node_id
    detail = card(graph, node_id)
    detail.update(
        text=view.text,
        table=_table(view.attrs),
        parent=view.doc_id if view.layer == 1 else owner if view.layer == 2 else None,
        children=[_brief(graph, child) for child in graph.children(node_id)],
        links_to=[{"doc_id": d, "title": graph.title(d)} for d in outgoing_links(graph, node_id)],
        linked_from=[_brief(graph, n) for n in backlinks(graph, view.doc_id)[:50]],
        page=[_brief(graph, c, full=True) for c in _page_components(graph, view.doc_id, owner)],
        highlight={"component_id": owner, "text": view.text if view.layer == 2 else ""},
        region_lines=region_lines(graph, node_id),
    )
    return detail


def _table(attrs: Mapping[str, Any]) -> dict[str, Any] | None:
    if "header" not in attrs:
        return None
    return {"header": list(attrs["header"]), "rows": [list(r) for r in attrs.get("rows", [])]}


def _brief(graph: LayeredGraph, node_id: str, full: bool = False) -> dict[str, Any]:
    view = graph.node(node_id)
    text = view.text if full else snippet(graph, node_id, 160)
    return {"component_id": node_id, "type": view.kind, "text": text, "table": _table(view.attrs)}


def _page_components(graph: LayeredGraph, doc_id: str, owner: str) -> list[str]:
    """Return the components printed on `owner`'s pages, or the document's first ones."""
    if owner == doc_id:
        return graph.children(doc_id)[:PAGE_COMPONENTS]
    components = graph.children(doc_id)
    span = graph.node(owner).pages
    if span is None:
        at = components.index(owner) if owner in components else 0
        start = max(0, min(at - PAGE_COMPONENTS // 2, len(components) - PAGE_COMPONENTS))
        return components[start : start + PAGE_COMPONENTS]
    on_page = []
    for component in components:
        pages = graph.node(component).pages
        if pages and pages[0] <= span[1] and pages[1] >= span[0]:
            on_page.append(component)
    return on_page[:PAGE_COMPONENTS]
