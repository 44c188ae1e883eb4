import json
from pathlib import Path

import pytest

from state.corpus import Component, Document, Subcomponent
from tools.errors import IndexNotFoundError
from tools.layered_graph import GRAPH_FORMAT, LayeredGraph
from tools.manifest import GRAPH_FILE


def small_graph() -> LayeredGraph:
    graph = LayeredGraph()
    graph.add_document(
        Document(
            "warsaw",
            "Warsaw",
            "https://en.wikipedia.org/wiki/Warsaw",
            (
                Component("warsaw::p0", "warsaw", "paragraph", 0, text="Capital of Poland."),
                Component(
                    "warsaw::i0", "warsaw", "image", 1, text="Flag", image_path="/c/flag.png"
                ),
            ),
        ),
        "Warsaw. Capital of Poland.",
    )
    graph.add_document(Document("poland", "Poland", components=()), "Poland.")
    graph.add_subcomponents(
        [
            Subcomponent("warsaw::p0::s0", "warsaw::p0", "warsaw", "sentence", 0, "Capital."),
            Subcomponent(
                "warsaw::i0::o0", "warsaw::i0", "warsaw", "region", 0, "Flag", box=(0, 0, 8, 8)
            ),
        ]
    )
    assert graph.add_link("warsaw::p0", "poland")
    assert graph.add_link("warsaw::p0::s0", "poland", origin="mention")
    return graph


def test_add_link_accepts_only_other_documents_as_targets() -> None:
    graph = small_graph()
    assert not graph.add_link("warsaw::p0", "warsaw")  # its own document
    assert not graph.add_link("warsaw::p0", "warsaw::i0")  # not a document
    assert not graph.add_link("warsaw::p0", "krakow")  # not in the corpus
    assert graph.counts()["edges_links_to"] == 2


def test_links_from_are_remembered_until_a_link_is_added() -> None:
    graph = small_graph()
    assert graph.links_from("warsaw::p0") == ("poland",)
    assert graph.links_from("warsaw::p0::s0") == ("poland",)
    assert graph.links_from("warsaw::i0") == ()  # contains edges are not links
    assert graph.links_from("warsaw::p0") is graph.links_from("warsaw::p0")  # remembered
    assert graph.add_link("warsaw::i0", "poland")
    assert graph.links_from("warsaw::i0") == ("poland",)


def test_access_helpers() -> None:
    graph = small_graph()
    assert "warsaw::i0::o0" in graph and "krakow" not in graph
    assert sorted(graph.nodes_at(0)) == ["poland", "warsaw"]
    assert list(graph.nodes_at(2)) == ["warsaw::p0::s0", "warsaw::i0::o0"]
    assert graph.children("warsaw") == ["warsaw::p0", "warsaw::i0"]
    assert graph.children("poland") == []
    assert graph.title("warsaw") == "Warsaw"
    view = graph.node("warsaw::i0::o0")
    assert (view.layer, view.kind, view.doc_id, view.text) == (2, "region", "warsaw", "Flag")
    with pytest.raises(KeyError):
        graph.node("krakow")


def test_save_load_round_trips_as_plain_json_not_pickle(tmp_path: Path) -> None:
    graph = small_graph()
    path = tmp_path / GRAPH_FILE
    graph.save(path)
    raw = path.read_bytes()
    assert not raw.startswith(b"\x80")  # pickle protocol marker
    payload = json.loads(raw)
    assert (payload["format"], payload["version"]) == (GRAPH_FORMAT, 1)
    assert not list(tmp_path.glob("*.tmp"))
    loaded = LayeredGraph.load(path)
    assert dict(loaded.g.nodes(data=True)) == dict(graph.g.nodes(data=True))
    assert sorted(loaded.g.edges(data=True)) == sorted(graph.g.edges(data=True))
    assert loaded.counts() == graph.counts()
    assert loaded.children("warsaw") == ["warsaw::p0", "warsaw::i0"]


def test_the_reading_order_is_saved_with_the_graph_and_read_back(tmp_path: Path) -> None:
    graph = small_graph()  # its subcomponents were added after every document
    expected = graph.reading_order()
    assert list(expected) != list(graph.g)
    path = tmp_path / GRAPH_FILE
    graph.save(path)
    loaded = LayeredGraph.load(path)
    assert loaded.reading_order() == expected
    assert list(loaded.reading_order()) == list(expected)  # in rank order
    payload = json.loads(path.read_text(encoding="utf-8"))
    positions = payload["reading_order"]
    payload["reading_order"] = positions[1:] + positions[:1]  # read, not walked again
    path.write_text(json.dumps(payload), encoding="utf-8")
    shifted = LayeredGraph.load(path).reading_order()
    assert shifted[next(iter(expected))] == len(expected) - 1
    for broken in ([10_000], [-1], "all", None):  # out of range, not a list, an older file
        payload["reading_order"] = broken
        path.write_text(json.dumps(payload), encoding="utf-8")
        assert LayeredGraph.load(path).reading_order() == expected


def test_load_explains_a_missing_or_foreign_file(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="no layered graph here; run `fif build"):
        LayeredGraph.load(tmp_path / GRAPH_FILE)
    (tmp_path / GRAPH_FILE).write_text('{"format": "networkx", "nodes": []}', encoding="utf-8")
    with pytest.raises(IndexNotFoundError, match="not a fif-layered-graph v1 file"):
        LayeredGraph.load(tmp_path / GRAPH_FILE)


def test_links_within_gathers_a_component_and_its_parts_and_forgets_on_a_new_link() -> None:
    graph = small_graph()
    assert graph.links_within("warsaw::p0") == {"poland"}
    assert graph.links_within("warsaw::i0") == frozenset()
    graph.add_document(Document("vistula", "Vistula", components=()), "Vistula.")
    assert graph.add_link("warsaw::i0::o0", "vistula")  # a part's link counts for its component
    assert graph.links_within("warsaw::i0") == {"vistula"}


def test_a_remembered_node_view_is_forgotten_when_the_node_is_added_again() -> None:
    graph = small_graph()
    assert graph.node("warsaw::p0::s0").text == "Capital."
    assert graph.node("warsaw::p0::s0") is graph.node("warsaw::p0::s0")  # remembered
    graph.add_subcomponents(
        [Subcomponent("warsaw::p0::s0", "warsaw::p0", "warsaw", "sentence", 0, "Capital city.")]
    )
    assert graph.node("warsaw::p0::s0").text == "Capital city."
    assert graph.node("warsaw::p0").text == "Capital of Poland."
    capital = Component("warsaw::p0", "warsaw", "paragraph", 0, text="Largest city.")
    graph.add_document(Document("warsaw", "Warsaw", components=(capital,)), "Warsaw.")
    assert graph.node("warsaw::p0").text == "Largest city."
