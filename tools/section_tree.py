"""The section tree of a document, built from its components' section paths and page spans.

A PDF component carries `section` (titles, outermost first) and `pages` ([first, last],
zero-indexed); consecutive components under the same path share a section node, and a
path re-entered after another section opens a new node, as the document reads. A
document without sections (HTML, bundles) gets the tree document → components: one leaf
per component. Every node knows its own components, its children and the page span of
everything under it, so a section can be fetched whole with its pages
(`tools.section_text`). Trees are built once per graph and document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from state.ids import section_id
from tools.layered_graph import LayeredGraph

SUMMARY_CHARS = 160
"""The opening of a section's first component that stands for its content in the index."""
LEAF_TITLE_WORDS = 8
"""A component's leaf in a tree without sections is titled by its first words."""


@dataclass(frozen=True)
class SectionNode:
    """One node of a section tree: the document (root) or a section."""

    section_id: str
    doc_id: str
    path: tuple[str, ...]
    """Titles from the outermost section down to this one; () for the document."""
    parent: str | None
    children: list[str] = field(default_factory=list)
    components: list[str] = field(default_factory=list)
    """The components directly under this node, in document order."""

    @property
    def title(self) -> str:
        """Return the section's own title (the document node has none)."""
        return self.path[-1] if self.path else ""


@dataclass
class SectionTree:
    """The sections of one document, by id, and the section holding each component."""

    doc_id: str
    title: str
    nodes: dict[str, SectionNode]
    of_component: dict[str, str]
    """Component id → the id of the (deepest) section it sits in."""
    spans: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """Section id → zero-indexed (first, last) page of everything under it (None: no pages)."""

    @property
    def root(self) -> str:
        """Return the id of the document node."""
        return section_id(self.doc_id, 0)

    def sections(self) -> list[str]:
        """Return every section id but the document's, in document order."""
        return [node for node in self.nodes if node != self.root]

    def components_under(self, node_id: str) -> list[str]:
        """Return the components of a node and of its descendants, in document order."""
        node = self.nodes[node_id]
        found = list(node.components)
        for child in node.children:
            found.extend(self.components_under(child))
        return found

    def heading(self, node_id: str) -> str:
        """Return a node's full heading: the section path, or the document title at the root."""
        return " > ".join(self.nodes[node_id].path) or self.title


def build_section_tree(graph: LayeredGraph, doc_id: str) -> SectionTree:
    """Build the section tree of one document of the graph."""
    components = graph.children(doc_id)
    paths = [graph.node(c).section for c in components]
    if not any(paths):
        paths = [(leaf_title(graph, c),) for c in components]
    root = SectionNode(section_id(doc_id, 0), doc_id, (), None)
    nodes = {root.section_id: root}
    of_component: dict[str, str] = {}
    chain = [root]
    for component, path in zip(components, paths, strict=True):
        keep = common_depth([n.path[-1] for n in chain[1:]], path)
        del chain[keep + 1 :]
        for depth in range(keep, len(path)):
            parent = chain[-1].section_id
            node = SectionNode(section_id(doc_id, len(nodes)), doc_id, path[: depth + 1], parent)
            chain[-1].children.append(node.section_id)
            nodes[node.section_id] = node
            chain.append(node)
        chain[-1].components.append(component)
        of_component[component] = chain[-1].section_id
    tree = SectionTree(doc_id, graph.title(doc_id), nodes, of_component)
    tree.spans = {node_id: page_span(graph, tree.components_under(node_id)) for node_id in nodes}
    return tree


def common_depth(open_titles: Sequence[str], path: Sequence[str]) -> int:
    """Return how many of the open sections (outermost first) the path stays inside."""
    depth = 0
    for title, wanted in zip(open_titles, path, strict=False):
        if title != wanted:
            break
        depth += 1
    return depth


def leaf_title(graph: LayeredGraph, component: str) -> str:
    """Title a component's leaf in a tree without sections: its kind and first words."""
    view = graph.node(component)
    words = " ".join(view.text.split()[:LEAF_TITLE_WORDS])
    return f"{view.kind} {view.attrs.get('order', 0)}: {words}".strip()


def page_span(graph: LayeredGraph, components: Sequence[str]) -> tuple[int, int] | None:
    """Return the (first, last) page covering components, None when none has pages."""
    spans = [span for c in components if (span := graph.pages(c)) is not None]
    if not spans:
        return None
    return min(s[0] for s in spans), max(s[1] for s in spans)


def section_summary(graph: LayeredGraph, tree: SectionTree, node_id: str) -> str:
    """Return what stands for a section in a heading index: its heading and opening words."""
    components = tree.components_under(node_id)
    opening = " ".join(graph.node(components[0]).text.split()) if components else ""
    return f"{tree.heading(node_id)}: {opening[:SUMMARY_CHARS]}"


_TREES: WeakKeyDictionary[LayeredGraph, dict[str, SectionTree]] = WeakKeyDictionary()


def section_tree(graph: LayeredGraph, doc_id: str) -> SectionTree:
    """Return the section tree of a document, built on first use and kept with the graph."""
    trees = _TREES.setdefault(graph, {})
    if doc_id not in trees:
        trees[doc_id] = build_section_tree(graph, doc_id)
    return trees[doc_id]
