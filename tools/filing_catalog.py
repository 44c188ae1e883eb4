"""The filings of an index: each document's identity, and a question's route among them.

The identity is read at build time and kept on the document node (`filing`); a document
without one (an HTML page, an index built before identities were read) is no filing and
is never routed to.
"""

from __future__ import annotations

from functools import lru_cache

from tools.filing_identity import FilingIdentity
from tools.filing_routing import FilingRoute, route
from tools.layered_graph import LayeredGraph


@lru_cache(maxsize=8)
def filings_of(graph: LayeredGraph) -> dict[str, FilingIdentity]:
    """Return the identity of each document that has one (cached per graph)."""
    found = {}
    for doc_id in graph.documents():
        values = graph.g.nodes[doc_id].get("filing")
        if values:
            identity = FilingIdentity.from_dict(values)
            if identity.registrant:
                found[doc_id] = identity
    return found


def route_question(graph: LayeredGraph, question: str) -> FilingRoute | None:
    """Return the filings a question names, best fitting first; None when it names none."""
    filings = filings_of(graph)
    return route(filings, question) if filings else None
