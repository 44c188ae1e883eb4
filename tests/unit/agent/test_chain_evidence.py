"""Chains and link hops: a row's links lift each other, hops go through rows and lead back."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from nodes.fif.chain_evidence import co_link_support
from nodes.fif.hop import best_linking_node, reachable
from state.corpus import Component, Document, Subcomponent
from tools.graph_nav import referrers
from tools.layered_graph import LayeredGraph

CUP, NOTES = "cup::t0", "notes::p0"


def cup_graph() -> LayeredGraph:
    """A cup's results table (a row per tie) and a paragraph naming two clubs side by side."""
    graph = LayeredGraph()
    for doc in ("girona", "celta", "puertollano", "leonesa"):
        club = (Component(f"{doc}::p0", doc, "paragraph", 0, text=f"{doc.title()} is a club."),)
        graph.add_document(Document(doc, doc.title(), components=club), doc.title())
    components = (Component(CUP, "cup", "table", 0, text="Third round ties"),)
    graph.add_document(Document("cup", "Cup", components=components), "Cup.")
    notes = (Component(NOTES, "notes", "paragraph", 0, text="Girona and Celta."),)
    graph.add_document(Document("notes", "Notes", components=notes), "Notes.")
    graph.add_subcomponents(
        [
            Subcomponent(f"{CUP}::r0", CUP, "cup", "row", 0, "Girona | Celta | 0-1"),
            Subcomponent(f"{CUP}::r1", CUP, "cup", "row", 1, "Puertollano | Leonesa | 2-1"),
            Subcomponent(f"{NOTES}::s0", NOTES, "notes", "sentence", 0, "Girona and Celta."),
        ]
    )
    links = {
        f"{CUP}::r0": ("girona", "celta"),
        f"{CUP}::r1": ("puertollano", "leonesa"),
        f"{NOTES}::s0": ("girona", "celta"),
    }
    for row, docs in links.items():
        for doc in docs:
            assert graph.add_link(row, doc)
    return graph


def test_a_rows_other_link_gains_the_fit_of_the_one_that_matches() -> None:
    index = SimpleNamespace(graph=cup_graph())
    rest = {
        (CUP, "girona::p0"): 0.3,  # the club the question describes (its stadium)
        (CUP, "celta::p0"): 0.0,  # the club it lost to: the answer
        (CUP, "puertollano::p0"): 0.1,
        (CUP, "leonesa::p0"): 0.05,
        (NOTES, "girona::p0"): 0.3,
        (NOTES, "celta::p0"): 0.0,
    }
    support = co_link_support(index, list(rest), rest)  # type: ignore[arg-type]
    assert support == pytest.approx(
        {
            (CUP, "celta::p0"): 0.3,
            (CUP, "girona::p0"): 0.0,
            (CUP, "puertollano::p0"): 0.05,
            (CUP, "leonesa::p0"): 0.1,
        }
    )  # a paragraph's sentence names clubs side by side: no support from it


def test_a_hop_is_reached_through_the_row_that_links_not_the_whole_table() -> None:
    """The table carries its rows' links and matches best itself: the row says which record."""
    graph = cup_graph()
    for doc in ("girona", "celta", "puertollano", "leonesa"):
        assert graph.add_link(CUP, doc)  # a table component lists its rows' links too
    score = {CUP: 0.9, f"{CUP}::r0": 0.4, f"{CUP}::r1": 0.6}
    assert best_linking_node(graph, [CUP, f"{CUP}::r0"], score) == f"{CUP}::r0"
    assert best_linking_node(graph, [CUP, f"{CUP}::r1"], score) == f"{CUP}::r1"
    assert best_linking_node(graph, [CUP], score) == CUP  # no part links: the whole does


def test_a_hop_from_a_top_anchor_also_reaches_the_pages_that_name_it() -> None:
    """A passage found first leads back to the table whose row names it, and to no more."""
    graph = cup_graph()
    assert referrers(graph, ["girona"]) == {"cup": [f"{CUP}::r0"], "notes": [f"{NOTES}::s0"]}
    assert reachable(graph, ["girona"], ["girona::p0"]) == {
        "cup": [f"{CUP}::r0"],
        "notes": [f"{NOTES}::s0"],
    }
    # nothing links to the table: its hop goes forward only
    assert set(reachable(graph, ["cup"], [CUP])) == {"girona", "celta", "puertollano", "leonesa"}
    # a page below the top three anchors does not lead back (Girona, 4th: not to the notes)
    anchors = ["puertollano::p0", "leonesa::p0", CUP, "girona::p0"]
    docs = ["puertollano", "leonesa", "cup", "girona"]
    assert set(reachable(graph, docs, anchors)) == {"celta"}
