"""The layered component graph in networkx, saved as plain JSON (never pickle).

Nodes carry `layer` (0 document, 1 component, 2 subcomponent), `kind` and their raw
content; edges carry `kind`: `contains` (document → component → subcomponent),
`links_to` (component or subcomponent → document) or `refers_to` (component → the first
component of a section of the same PDF, from a link annotation or a "see Note 7" mention:
a PDF section is not a node of its own, its first component stands for it).

PDF-derived components and subcomponents also carry `pages` ([first, last], zero-indexed)
and components `section` (titles, outermost first); `NodeView.pages` reads them, None for
nodes without pages; `LayeredGraph.section` gives a subcomponent its component's section.
A PDF document node carries `page_count` and `source`, the absolute path of the PDF it was
read from (what `fif serve` renders pages of and links to).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import networkx as nx

from state.corpus import Component, Document, Subcomponent
from state.ids import page_key
from tools.atomic_file import atomic_open
from tools.errors import IndexNotFoundError
from tools.graph_order import loaded_order, saved_order
from tools.node_view import NodeView

GRAPH_FORMAT = "fif-layered-graph"
GRAPH_VERSION = 1
LAYER_OF_KIND = {"document": 0} | dict.fromkeys(("paragraph", "table", "image"), 1)
LAYER_OF_KIND |= dict.fromkeys(("sentence", "row", "region"), 2)


def with_lists(attrs: dict[str, Any], **optional: Iterable[Any] | None) -> None:
    """Add each optional sequence that is set (pages, section, box) to attrs as a JSON list."""
    attrs.update({key: list(value) for key, value in optional.items() if value is not None})


class LayeredGraph:
    """A three-layer graph of documents, components and subcomponents with link edges."""

    def __init__(
        self, graph: nx.DiGraph | None = None, order: dict[str, int] | None = None
    ) -> None:
        self.g: nx.DiGraph = graph if graph is not None else nx.DiGraph()
        self._children: dict[str, tuple[str, ...]] = {}
        """Each node's ordered contained nodes, as asked; emptied when a contains edge is added
        (a search asks for the same children hundreds of thousands of times per question)."""
        self._links: dict[str, tuple[str, ...]] = {}  # linked documents, as asked (like _children)
        self._links_within: dict[str, frozenset[str]] = {}  # of a component and its parts
        self._views: dict[str, NodeView] = {}  # as asked; emptied when a node is (re)added
        self._loaded_order = order  # the reading order, when a graph file held it
        self._documents: tuple[str, ...] | None = None

    # -- construction ---------------------------------------------------------------------
    def add_document(self, document: Document, summary: str) -> None:
        """Add a document node with its summary and its components with contains edges."""
        self._documents = None
        self._views.clear()
        self.g.add_node(
            document.doc_id,
            layer=0,
            kind="document",
            doc_id=document.doc_id,
            title=document.title,
            url=document.url,
            text=summary,
        )
        if document.filing:
            self.g.nodes[document.doc_id]["filing"] = dict(document.filing)
        if document.page_count:
            self.g.nodes[document.doc_id]["page_count"] = document.page_count
            if document.source.lower().endswith(".pdf"):  # bundles name a line, not a file
                self.g.nodes[document.doc_id]["source"] = str(Path(document.source).resolve())
        for component in document.components:
            self._add_component(component)

    def _add_component(self, component: Component) -> None:
        attrs: dict[str, Any] = {
            "layer": 1,
            "kind": component.kind,
            "doc_id": component.doc_id,
            "order": component.order,
            "text": component.text,
        }
        if component.table is not None:
            attrs["header"] = list(component.table.header)
            attrs["rows"] = [list(row) for row in component.table.rows]
        if component.image_path is not None:
            attrs["image_path"] = component.image_path
        with_lists(attrs, pages=component.pages, section=component.section or None,
                   box=component.box)  # fmt: skip
        self.g.add_node(component.component_id, **attrs)
        self.g.add_edge(component.doc_id, component.component_id, kind="contains")
        self._tree_changed()

    def add_subcomponents(self, subcomponents: Iterable[Subcomponent]) -> None:
        """Add subcomponent nodes under their components."""
        for sub in subcomponents:
            attrs: dict[str, Any] = {
                "layer": 2,
                "kind": sub.kind,
                "doc_id": sub.doc_id,
                "component_id": sub.component_id,
                "order": sub.order,
                "text": sub.text,
            }
            with_lists(attrs, box=sub.box, pages=sub.pages)
            self.g.add_node(sub.subcomponent_id, **attrs)
            self.g.add_edge(sub.component_id, sub.subcomponent_id, kind="contains")
        self._views.clear()
        self._links_within.clear()
        self._tree_changed()

    def _tree_changed(self) -> None:
        """Forget what was derived from the contains edges (children lists, load order)."""
        self._children.clear()
        self._loaded_order = None

    def add_link(self, source: str, target_doc: str, origin: str = "hyperlink") -> bool:
        """Add a links_to edge from a (sub)component to a document; False if it is not added."""
        if target_doc not in self.g or self.g.nodes[target_doc]["layer"] != 0:
            return False
        if self.g.nodes[source]["doc_id"] == target_doc:
            return False
        self.g.add_edge(source, target_doc, kind="links_to", origin=origin)
        self._links.pop(source, None)
        self._links_within.clear()
        return True

    def add_reference(self, source: str, target: str, origin: str) -> bool:
        """Add a refers_to edge between two components of one document; False if not added."""
        if source == target or target not in self.g or self.g.nodes[target]["layer"] != 1:
            return False
        if self.g.nodes[source]["doc_id"] != self.g.nodes[target]["doc_id"]:
            return False
        self.g.add_edge(source, target, kind="refers_to", origin=origin)
        return True

    def pages(self, node_id: str) -> tuple[int, int] | None:
        """Return a node's zero-indexed (first, last) PDF page, None when it has no pages."""
        return self.node(node_id).pages

    def section(self, node_id: str) -> tuple[str, ...]:
        """Return the section path of a PDF component or of a subcomponent's component."""
        view = self.node(node_id)
        if view.layer == 2:
            return self.node(view.attrs["component_id"]).section
        return view.section

    def page_keys(self, node_id: str) -> list[str]:
        """Return the "DOC#PAGE" keys of the pages a node is printed on ([] without pages)."""
        view = self.node(node_id)
        span = view.pages
        if span is None:
            return []
        return [page_key(view.doc_id, page) for page in range(span[0], span[1] + 1)]

    def page_ranking(self, ranking: Iterable[str]) -> list[str]:
        """Return the pages of a component ranking: each node's pages in rank order, once each.

        Nodes without pages (HTML and bundle documents) contribute nothing.
        """
        pages: dict[str, None] = {}
        for node_id in ranking:
            if node_id in self.g:
                pages.update(dict.fromkeys(self.page_keys(node_id)))
        return list(pages)

    # -- access ---------------------------------------------------------------------------
    def node(self, node_id: str) -> NodeView:
        """Return a view of a node, remembered (FiF asks ~600 a question); KeyError if none."""
        view = self._views.get(node_id)
        if view is None:
            attrs = self.g.nodes[node_id]
            text = attrs.get("text", "")
            view = NodeView(node_id, attrs["layer"], attrs["kind"], attrs["doc_id"], text, attrs)
            self._views[node_id] = view
        return view

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.g

    def documents(self) -> tuple[str, ...]:
        """Return every document id (layer 0), remembered until a document is added."""
        if self._documents is None:
            self._documents = tuple(self.nodes_at(0))
        return self._documents

    def nodes_at(self, layer: int) -> Iterator[str]:
        """Yield the ids of all nodes of a layer."""
        return (n for n, data in self.g.nodes(data=True) if data["layer"] == layer)

    def children(self, node_id: str) -> list[str]:
        """Return the contained nodes of a node, in order."""
        kids = self._children.get(node_id)
        if kids is None:
            edges = self.g.succ[node_id]
            contained = [v for v, data in edges.items() if data["kind"] == "contains"]
            kids = tuple(sorted(contained, key=lambda v: self.g.nodes[v].get("order", 0)))
            self._children[node_id] = kids
        return list(kids)

    def links_from(self, node_id: str) -> tuple[str, ...]:
        """Return the documents a node links to, in edge order (FiF asks ~500 times a question)."""
        links = self._links.get(node_id)
        if links is None:
            edges = self.g.succ[node_id]
            links = tuple(v for v, data in edges.items() if data["kind"] == "links_to")
            self._links[node_id] = links
        return links

    def links_within(self, component_id: str) -> frozenset[str]:
        """Return the documents a component or any of its parts links to (remembered)."""
        links = self._links_within.get(component_id)
        if links is None:
            parts = [component_id, *self.children(component_id)]
            links = frozenset(doc for part in parts for doc in self.links_from(part))
            self._links_within[component_id] = links
        return links

    def ancestor(self, node_id: str, depth: int) -> str:
        """Return the node `depth` layers above (0: the node itself)."""
        if depth <= 0:
            return node_id
        attrs = self.g.nodes[node_id]
        if depth == 1 and attrs["layer"] == 2:
            return str(attrs["component_id"])
        return str(attrs["doc_id"])

    def reading_order(self) -> dict[str, int]:
        """Return each node's rank in reading order.

        A document comes first, then each of its components followed by that component's
        subcomponents, so the descendants of any node are one run of ranks.
        """
        order = self._loaded_order
        if order is None:
            order = {}
            for doc in self.nodes_at(0):
                order[doc] = len(order)
                for component in self.children(doc):
                    order[component] = len(order)
                    for sub in self.children(component):
                        order[sub] = len(order)
            self._loaded_order = order
        return order

    def title(self, doc_id: str) -> str:
        """Return a document's title."""
        return str(self.g.nodes[doc_id].get("title", doc_id))

    def counts(self) -> dict[str, int]:
        """Count nodes by kind and edges by kind."""
        result: dict[str, int] = {}
        for _, data in self.g.nodes(data=True):
            result[data["kind"]] = result.get(data["kind"], 0) + 1
        for _, _, data in self.g.edges(data=True):
            key = f"edges_{data['kind']}"
            result[key] = result.get(key, 0) + 1
        return result

    # -- persistence ----------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write the graph as JSON atomically (write a temp file, then rename)."""
        payload = {
            "format": GRAPH_FORMAT,
            "version": GRAPH_VERSION,
            "nodes": [[node, data] for node, data in self.g.nodes(data=True)],
            "edges": [[u, v, data] for u, v, data in self.g.edges(data=True)],
            "reading_order": saved_order(self.reading_order(), list(self.g)),
        }
        with atomic_open(path) as handle:
            json.dump(payload, handle, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def load(cls, path: Path) -> LayeredGraph:
        """Read a graph written by save(); the corpus is not re-parsed."""
        if not path.is_file():
            raise IndexNotFoundError(
                f"{path}: no layered graph here; run `fif build CORPUS --index {path.parent}` first"
            )
        with path.open(encoding="utf-8") as handle:
            payload = json.load(handle)
        if payload.get("format") != GRAPH_FORMAT or payload.get("version") != GRAPH_VERSION:
            raise IndexNotFoundError(
                f"{path}: not a {GRAPH_FORMAT} v{GRAPH_VERSION} file; "
                "rebuild the index with this version of fif"
            )
        graph = nx.DiGraph()
        graph.add_nodes_from((node, data) for node, data in payload["nodes"])
        graph.add_edges_from((u, v, data) for u, v, data in payload["edges"])
        return cls(graph, loaded_order(payload))
