"""Read a ranking of PDF (sub)components as a ranking of page regions: boxes on pages.

A component's box and a region line's box are in PDF points with the origin at the top-left
corner of the page (MMDocIR's convention). A sentence has no box of its own: it stands for
its component's box. Nodes outside PDFs (no page) have no region.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from tools.node_view import NodeView

PageRegion = dict[str, Any]
"""{"doc": doc id, "page": zero-indexed page, "bbox": [x1, y1, x2, y2]} (JSON-ready)."""


class NodeSource(Protocol):
    """What region reading needs of the layered graph."""

    def __contains__(self, node_id: object) -> bool:
        """Tell whether a node is in the graph."""
        ...

    def node(self, node_id: str) -> NodeView:
        """Return a node's view."""
        ...


def node_region(graph: NodeSource, node_id: str) -> PageRegion | None:
    """Return the region of a node: its box on its first page, else its component's box."""
    if node_id not in graph:
        return None
    view = graph.node(node_id)
    box = view.attrs.get("box")
    if view.layer == 2 and (box is None or view.pages is None):
        return node_region(graph, str(view.attrs["component_id"]))
    if box is None or view.pages is None or len(box) != 4:
        return None
    return {"doc": view.doc_id, "page": view.pages[0], "bbox": [float(v) for v in box]}


def region_ranking(graph: NodeSource, ranking: Iterable[str]) -> list[PageRegion]:
    """Return the regions of a ranking in rank order, each distinct region once."""
    seen: set[tuple[str, int, tuple[float, ...]]] = set()
    regions = []
    for node_id in ranking:
        region = node_region(graph, node_id)
        if region is None:
            continue
        key = (region["doc"], region["page"], tuple(region["bbox"]))
        if key not in seen:
            seen.add(key)
            regions.append(region)
    return regions
