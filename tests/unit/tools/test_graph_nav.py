from pathlib import Path

import pytest

from tools.graph_nav import (
    ancestors,
    backlinks,
    component_of,
    descendants,
    link_sources,
    neighbors,
    outgoing_links,
)
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE

TABLE = "nobel_prize_physics::t0"


@pytest.fixture(scope="module")
def graph(mini_index: Path) -> LayeredGraph:
    return LayeredGraph.load(mini_index / GRAPH_FILE)


def test_descendants_at_each_layer(graph: LayeredGraph) -> None:
    assert descendants(graph, "warsaw", 0) == ["warsaw"]
    assert descendants(graph, "warsaw", 1) == ["warsaw::p0", "warsaw::p1", "warsaw::i0"]
    assert descendants(graph, "warsaw", 2) == [
        "warsaw::p0::s0",
        "warsaw::p0::s1",
        "warsaw::p1::s0",
        *(f"warsaw::i0::o{n}" for n in range(4)),
    ]
    assert descendants(graph, TABLE, 2) == [f"{TABLE}::r{n}" for n in range(6)]
    assert descendants(graph, f"{TABLE}::r1", 2) == [f"{TABLE}::r1"]
    with pytest.raises(ValueError, match="layer 2"):
        descendants(graph, f"{TABLE}::r1", 1)


def test_ancestors_and_component_of(graph: LayeredGraph) -> None:
    assert ancestors(graph, f"{TABLE}::r4") == [TABLE, "nobel_prize_physics"]
    assert ancestors(graph, TABLE) == ["nobel_prize_physics"]
    assert ancestors(graph, "nobel_prize_physics") == []
    assert component_of(graph, f"{TABLE}::r4") == TABLE
    assert component_of(graph, TABLE) == TABLE
    with pytest.raises(ValueError, match="is a document"):
        component_of(graph, "warsaw")


def test_outgoing_links_and_link_sources(graph: LayeredGraph) -> None:
    assert outgoing_links(graph, f"{TABLE}::r3") == ["pierre_curie"]
    assert outgoing_links(graph, f"{TABLE}::r0") == []
    assert link_sources(graph, ["nobel_prize_physics"]) == [
        TABLE,
        f"{TABLE}::r2",
        f"{TABLE}::r3",
        f"{TABLE}::r4",
    ]


def test_neighbors_follow_every_link_of_the_start_documents(graph: LayeredGraph) -> None:
    assert neighbors(graph, ["nobel_prize_physics"]) == {
        "henri_becquerel": [TABLE, f"{TABLE}::r2"],
        "pierre_curie": [TABLE, f"{TABLE}::r3"],
        "marie_curie": [TABLE, f"{TABLE}::r4"],
    }


def test_neighbors_from_given_sources_follow_only_their_links(graph: LayeredGraph) -> None:
    assert neighbors(graph, ["nobel_prize_physics"], sources=[f"{TABLE}::r4"]) == {
        "marie_curie": [f"{TABLE}::r4"]
    }
    assert neighbors(graph, ["nobel_prize_physics"], sources=[f"{TABLE}::r0"]) == {}


def test_neighbors_exclude_the_start_set(graph: LayeredGraph) -> None:
    # first-seen order follows the given documents, whatever PYTHONHASHSEED is
    result = neighbors(graph, ["marie_curie", "pierre_curie"])
    assert "pierre_curie" not in result and "marie_curie" not in result
    assert list(result) == [
        "warsaw",
        "polonium",
        "radium",
        "nobel_prize_physics",
        "university_of_paris",
        "henri_becquerel",
    ]
    assert result["nobel_prize_physics"] == ["marie_curie::p1", "pierre_curie::p0"]


def test_backlinks_list_every_component_and_row_pointing_at_a_document(
    graph: LayeredGraph,
) -> None:
    assert sorted(backlinks(graph, "marie_curie")) == sorted(
        [
            "pierre_curie::p0",
            "henri_becquerel::p1",
            "warsaw::p1",
            "polonium::p0",
            "radium::p0",
            "university_of_paris::p1",
            TABLE,
            f"{TABLE}::r4",
        ]
    )
    assert backlinks(graph, "warsaw") == ["marie_curie::p0"]
    assert "uranium" not in graph  # the unresolved link left no node behind
