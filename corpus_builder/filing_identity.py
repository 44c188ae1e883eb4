"""A PDF filing's identity at build time, read from its raw first pages.

The cover lines are read before running headers and footers are dropped (a 10-K may repeat
its period in every page header, and the furniture filter removes repeated lines), with
the rules of `tools.filing_identity`. The identity travels on the document (bundle record,
graph document node), so a query can be routed to the filing it asks about.
`annotate_graph` adds it to an index built before, without re-embedding anything.
"""

from __future__ import annotations

import logging
from pathlib import Path

from corpus_builder.pdf_pages import PdfFile
from tools.component_terms import sync_component_terms
from tools.filing_identity import REGISTRANT_PAGES, FilingIdentity, read_identity
from tools.filing_pages import page_texts
from tools.layered_graph import LayeredGraph

logger = logging.getLogger(__name__)


def pdf_filing(pdf: PdfFile, title: str = "") -> FilingIdentity:
    """Return the identity printed on a PDF's first pages (empty fields when not a filing)."""
    texts = [(line.page, line.text) for page in pdf.pages[:REGISTRANT_PAGES] for line in page.lines]
    return read_identity(texts, title)


def annotate_graph(graph_file: Path, pdf_dir: Path) -> int:
    """Add each PDF document's filing identity to a saved graph; return how many were added.

    The index's component-terms store is brought up to date with the rewritten graph file.

    Args:
        graph_file: The index's graph.json.
        pdf_dir: Folder holding `<doc_id>.pdf` for the graph's PDF documents.
    """
    from corpus_builder.pdf_reader import read_pdf  # pypdfium2 loads only when PDFs are read

    graph = LayeredGraph.load(graph_file)
    added = 0
    for doc_id in graph.documents():
        path = pdf_dir / f"{doc_id}.pdf"
        if not path.is_file():
            logger.warning(
                "%s: no PDF for document %s; its filing identity is not read", pdf_dir, doc_id
            )
            continue
        node = graph.g.nodes[doc_id]
        node["filing"] = pdf_filing(read_pdf(path), str(node.get("title", ""))).as_dict()
        added += 1
    graph.save(graph_file)
    if (
        graph_file.parent / "manifest.json"
    ).is_file():  # the terms store follows the graph's digest
        sync_terms(graph_file, graph)
    return added


def sync_terms(graph_file: Path, graph: LayeredGraph) -> str:
    """Bring the index's component terms, filing pages' words included, up to date with it."""
    return sync_component_terms(graph_file.parent, graph, graph_file, page_texts(graph))
