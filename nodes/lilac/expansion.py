"""The graph side of LILaC's traversal: seed components and one-hop edges.

Edges of the component layer (seed 001, §4.1, Eqs. 1–2) are derived on the fly from the
layered graph instead of being materialised: E_intra joins the components of one
document, E_inter joins a component to every component of a document it links to
(through itself or one of its subcomponents). Components are profiled by
`tools.late_interaction.component_profiles`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from nodes.lilac.late_interaction import Edge
from state.core import Granularity
from state.lilac_state import EdgeKind, SeedGranularity
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import backlinks, component_of, neighbors
from tools.layered_graph import LayeredGraph
from tools.search import score_vec

logger = logging.getLogger(__name__)


def seed_components(
    index: CorpusIndex,
    question: np.ndarray,
    width: int,
    granularity: SeedGranularity,
    meter: CostMeter,
) -> list[tuple[str, float]]:
    """Return V_0: the top-`width` components by similarity to Q, best first (Eq. 5).

    At `subcomponent` granularity a component scores as its best subcomponent (the
    authors' code seeds this way); `both` takes the max of the two scores.
    """
    found: dict[str, float] = {}
    granularities: tuple[Granularity, ...] = (
        ("component", "subcomponent") if granularity == "both" else (granularity,)
    )
    for level in granularities:
        for node in score_vec(index, question, "component", level, width, meter=meter):
            found[node.node_id] = max(node.score, found.get(node.node_id, -np.inf))
    return sorted(found.items(), key=lambda item: (-item[1], item[0]))[:width]


def adjacent(
    graph: LayeredGraph, component: str, follow_backlinks: bool, cap: int
) -> list[tuple[str, EdgeKind]]:
    """Return the components one hop from a component, with the kind of edge reaching each.

    Args:
        graph: The layered graph.
        component: The component to expand.
        follow_backlinks: Also reach the components linking to this component's document.
        cap: At most this many neighbours (intra-document ones first).
    """
    doc = graph.node(component).doc_id
    found: dict[str, EdgeKind] = {c: "intra" for c in graph.children(doc) if c != component}
    sources = [component, *graph.children(component)]
    for linked_doc in neighbors(graph, [doc], sources=sources):
        for other in graph.children(linked_doc):
            found.setdefault(other, "inter")
    if follow_backlinks:
        for source in backlinks(graph, doc):
            found.setdefault(component_of(graph, source), "inter")
    found.pop(component, None)
    if len(found) > cap:
        logger.debug("%s has %d neighbours; keeping %d", component, len(found), cap)
    return list(found.items())[:cap]


def expand(
    graph: LayeredGraph,
    frontier: Sequence[str],
    follow_backlinks: bool,
    cap: int,
    reachable: Callable[[str], bool] = lambda doc_id: True,
) -> list[Edge]:
    """Return the one-hop edges of the frontier; an isolated component gets a dummy edge.

    Edges into documents that `reachable` refuses (outside a document scope) are left out.
    """
    edges: list[Edge] = []
    for component in frontier:
        reached = [
            (other, kind)
            for other, kind in adjacent(graph, component, follow_backlinks, cap)
            if reachable(graph.node(other).doc_id)
        ]
        if not reached:
            edges.append(Edge(component, None, "dummy"))
        edges.extend(Edge(component, other, kind) for other, kind in reached)
    return edges


def edge_components(edges: Iterable[Edge]) -> list[str]:
    """Return every component touched by the edges, in first-seen order."""
    seen: dict[str, None] = {}
    for edge in edges:
        seen.setdefault(edge.source)
        if edge.target is not None:
            seen.setdefault(edge.target)
    return list(seen)
