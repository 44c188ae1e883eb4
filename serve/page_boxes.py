"""What the page shows of a PDF node's box: a label for it, and the text lines inside it.

A result row prints its page and what its box is ("Figure 3", "table", "line in Figure 3");
the component panel draws the box on the rendered page and lists, beside the image, the
lines read inside a region (its text-layer lines and its OCR lines), each with its own box.
Boxes are PDF points with the origin at the page's top-left corner (tools.page_regions).
"""

from __future__ import annotations

from typing import Any

from corpus_builder.pdf_figures import CAPTION
from tools.layered_graph import LayeredGraph
from tools.page_regions import node_region

MAX_REGION_LINES = 200
"""Lines of a region listed beside its page (a dense scanned table holds more)."""


def region_label(graph: LayeredGraph, node_id: str) -> str | None:
    """Return what a node's box is, as printed next to a result; None without a box.

    A region (an image component of a PDF) is named by its caption's label ("Figure 3",
    "Table 2") or "region"; a paragraph or table by its kind; a region line is a "line in"
    its region, and a sentence or row, which has no box of its own, is "in" its component.
    """
    if node_region(graph, node_id) is None:
        return None
    view = graph.node(node_id)
    if view.layer == 2:
        owner = str(view.attrs["component_id"])
        prefix = "line in" if view.kind == "region" else f"{view.kind} in"
        return f"{prefix} {_component_label(graph, owner)}"
    return _component_label(graph, node_id)


def _component_label(graph: LayeredGraph, component_id: str) -> str:
    view = graph.node(component_id)
    if view.kind != "image":
        return view.kind
    caption = CAPTION.match(view.text.strip())
    return caption.group(0) if caption else "region"


def region_lines(graph: LayeredGraph, node_id: str) -> list[dict[str, Any]]:
    """Return the lines inside a region (or inside the region of a line), each with its box.

    Empty for nodes outside regions: a paragraph's or table's text is its own content.
    """
    view = graph.node(node_id)
    owner = str(view.attrs["component_id"]) if view.layer == 2 else node_id
    if owner not in graph or graph.node(owner).kind != "image":
        return []
    lines = []
    for child in graph.children(owner)[:MAX_REGION_LINES]:
        region = node_region(graph, child)
        line = graph.node(child)
        if line.kind == "region" and region is not None:
            lines.append({"component_id": child, "text": line.text, "bbox": region["bbox"]})
    return lines
