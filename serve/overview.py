"""What an index holds, for the landing page: counts by kind and example starting points.

The examples are the titles of the documents with the most links out (tables and hub
pages, where a multi-hop question starts), so every index offers its own.
"""

from __future__ import annotations

from typing import Any

from tools.layered_graph import LayeredGraph

EXAMPLES = 4
_CACHE: dict[int, tuple[LayeredGraph, dict[str, Any]]] = {}
"""Overview by graph identity (the graph object is kept, so its id is not reused)."""


def overview(graph: LayeredGraph) -> dict[str, Any]:
    """Return the index's counts (documents, components by kind, links) and example titles."""
    cached = _CACHE.get(id(graph))
    if cached is not None and cached[0] is graph:
        return cached[1]
    counts = graph.counts()
    documents = graph.documents()
    out_links = {
        doc: sum(len(graph.links_within(component)) for component in graph.children(doc))
        for doc in documents
    }
    hubs = sorted(documents, key=lambda doc: (-out_links[doc], doc))[:EXAMPLES]
    result = {
        "documents": len(documents),
        "counts": {kind: n for kind, n in sorted(counts.items()) if n},
        "examples": [{"doc_id": doc, "title": graph.title(doc)} for doc in hubs],
    }
    _CACHE[id(graph)] = (graph, result)
    return result
