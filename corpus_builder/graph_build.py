"""Assemble the layered component graph from documents, subcomponents and summaries."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from state.corpus import Document, IngestReport, Subcomponent, Table
from tools.layered_graph import LayeredGraph
from tools.mentions import mention_links, title_index

logger = logging.getLogger(__name__)


MENTION_KINDS = ("sentence", "row")
"""Subcomponents whose text is searched for other pages' titles when a corpus has no links."""


def build_layered_graph(
    documents: Sequence[Document],
    subcomponents: Mapping[str, Sequence[Subcomponent]],
    summaries: Mapping[str, str],
    report: IngestReport,
    link_mentions: bool,
) -> LayeredGraph:
    """Add contains edges, links_to edges for hyperlinks (and mentions), refers_to for PDFs."""
    graph = LayeredGraph()
    for document in documents:
        graph.add_document(document, summaries[document.doc_id])
    for document in documents:
        for component in document.components:
            subs = subcomponents.get(component.component_id, ())
            graph.add_subcomponents(subs)
            for target in component.links:
                if not graph.add_link(component.component_id, target) and target not in graph:
                    report.unresolved(component.component_id, target)
            for sub in subs:
                for target in sub.links:
                    graph.add_link(sub.subcomponent_id, target)
    for document in documents:
        for component in document.components:
            for target in component.refers_to:
                graph.add_reference(component.component_id, target, origin="pdf")
    if link_mentions:
        _add_mention_links(graph, documents, subcomponents)
    return graph


def _add_mention_links(
    graph: LayeredGraph,
    documents: Sequence[Document],
    subcomponents: Mapping[str, Sequence[Subcomponent]],
) -> None:
    index = title_index((d.doc_id, d.title) for d in documents)
    # Sentences and table rows: a cell naming a page is the bridge of a table-to-text hop.
    tables = {c.component_id: c.table for d in documents for c in d.components if c.table}
    texts = [
        _cells_only(sub, tables) for subs in subcomponents.values() for sub in subs
        if sub.kind in MENTION_KINDS
    ]  # fmt: skip
    added = 0
    for node_id, doc in mention_links(texts, index):
        component = graph.node(node_id).attrs["component_id"]
        added += graph.add_link(node_id, doc, origin="mention")
        graph.add_link(component, doc, origin="mention")
    logger.info("added %d mention links from %d titles", added, len(index))


def _cells_only(sub: Subcomponent, tables: Mapping[str, Table | None]) -> Subcomponent:
    """Return a row with its cells' text alone: column names must not match page titles."""
    table = tables.get(sub.component_id)
    if sub.kind != "row" or table is None or sub.order >= len(table.rows):
        return sub
    return replace(sub, text=" | ".join(cell for cell in table.rows[sub.order] if cell))


def has_hyperlinks(documents: Sequence[Document]) -> bool:
    """Tell whether any component of the corpus carries a hyperlink."""
    return any(component.links for document in documents for component in document.components)
