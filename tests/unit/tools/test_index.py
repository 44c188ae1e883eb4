from pathlib import Path

import numpy as np
import pytest

from tools.errors import ConfigError, IndexMismatchError, IndexNotFoundError
from tools.index import ChromaLayers, collection_prefix


@pytest.mark.parametrize(
    ("name", "prefix"),
    [
        ("mini_index", "mini_index"),
        ("my index (v2)!", "my-index-v2"),
        ("__hidden", "hidden"),
        ("...", "fif"),
        ("x" * 60, "x" * 40),
    ],
)
def test_collection_prefix_is_a_valid_chroma_name(name: str, prefix: str) -> None:
    assert collection_prefix(name) == prefix


def test_a_malformed_server_url_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="expected http://host:port"):
        ChromaLayers.open(tmp_path, "ftp://localhost:8000", "fif")


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


@pytest.fixture
def layers(tmp_path: Path) -> ChromaLayers:
    layers = ChromaLayers.open(tmp_path, None, "t")
    layers.collection("component", "hash:3", 3)
    layers.upsert(
        "component",
        ["a::p0", "a::p1", "b::p0"],
        np.stack([unit(1, 0, 0), unit(1, 1, 0), unit(0, 0, 1)]),
        [
            {"doc_id": "a", "component_id": "a::p0", "type": "paragraph", "hash": "h0"},
            {"doc_id": "a", "component_id": "a::p1", "type": "table", "hash": "h1"},
            {"doc_id": "b", "component_id": "b::p0", "type": "image", "hash": "h2"},
        ],
    )
    return layers


def test_query_returns_cosine_scores_best_first(layers: ChromaLayers) -> None:
    hits = layers.query("component", unit(1, 0, 0), 10)
    assert [h.node_id for h in hits] == ["a::p0", "a::p1", "b::p0"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score == pytest.approx(float(np.sqrt(0.5)), abs=1e-4)
    assert (hits[1].doc_id, hits[1].component_id, hits[1].kind) == ("a", "a::p1", "table")


def test_query_takes_known_fields_from_the_graph_and_the_rest_from_chroma(
    layers: ChromaLayers,
) -> None:
    layers.nodes = lambda node_id: ("from-graph", node_id, "sentence") if "a" in node_id else None
    hits = {
        h.node_id: (h.doc_id, h.component_id, h.kind)
        for h in layers.query("component", unit(1, 0, 0), 10)
    }
    assert hits == {
        "a::p0": ("from-graph", "a::p0", "sentence"),
        "a::p1": ("from-graph", "a::p1", "sentence"),
        "b::p0": ("b", "b::p0", "image"),  # unknown to the graph: its stored metadata
    }


def test_graph_fields_match_the_metadata_a_build_stores() -> None:
    from corpus_builder.layer_items import embed_items
    from corpus_builder.splitters import FixedCrops, split_components
    from state.corpus import Component, Document, Table
    from tools.index import graph_fields
    from tools.layered_graph import LayeredGraph

    paragraph = Component("d::p0", "d", "paragraph", 0, "One is here. Two is there.")
    table = Component("d::t1", "d", "table", 1, "T", Table(("a", "b"), (("1", "2"),)))
    document = Document("d", "D", components=(paragraph, table))
    parts = split_components([document], FixedCrops())
    graph = LayeredGraph()
    graph.add_document(document, "D")
    graph.add_subcomponents(s for subs in parts.values() for s in subs)
    fields = graph_fields(graph)
    items = [i for layer in embed_items([document], parts, {"d": "D"}) for i in layer]
    assert len(items) == 6  # the document, two components, two sentences and a row
    for item in items:
        meta = item.metadata
        assert fields(item.node_id) == (meta["doc_id"], meta["component_id"], meta["type"])
    assert fields("elsewhere") is None


def test_query_inside_documents(layers: ChromaLayers) -> None:
    assert [h.node_id for h in layers.query("component", unit(1, 0, 0), 10, ["b"])] == ["b::p0"]
    assert layers.query("component", unit(1, 0, 0), 10, []) == []


def test_upsert_is_idempotent_and_delete_removes(layers: ChromaLayers) -> None:
    layers.upsert("component", ["a::p0"], unit(0, 1, 0)[None, :], [{"doc_id": "a", "hash": "new"}])
    assert layers.count("component") == 3
    assert layers.stored_hashes("component") == {"a::p0": "new", "a::p1": "h1", "b::p0": "h2"}
    assert np.allclose(layers.vectors("component", ["a::p0"])["a::p0"], unit(0, 1, 0))
    layers.delete("component", ["a::p1", "b::p0"])
    assert layers.count("component") == 1
    assert set(layers.vectors("component", ["a::p1", "a::p0"])) == {"a::p0"}
    assert layers.vectors("component", []) == {}


def test_collections_remember_their_embedder(tmp_path: Path, layers: ChromaLayers) -> None:
    for embedder, dim in (("hash:8", 3), ("hash:3", 8)):
        reopened = ChromaLayers.open(tmp_path, None, "t")
        with pytest.raises(IndexMismatchError, match="holds hash:3 vectors .dim 3."):
            reopened.collection("component", embedder, dim)
    reopened = ChromaLayers.open(tmp_path, None, "t")
    assert reopened.count("component") == 3  # opening for search needs no embedder id


def test_drop_and_empty_layers(layers: ChromaLayers) -> None:
    layers.collection("document", "hash:3", 3)
    assert layers.query("document", unit(1, 0, 0), 5) == []
    assert layers.stored_hashes("document") == {}
    layers.drop("component")
    layers.drop("image")  # never created: nothing to do
    names = {c.name for c in layers.client.list_collections()}
    assert names == {"t_documents"}


def test_a_reopened_index_reads_and_writes_without_opening_collections_first(
    tmp_path: Path, layers: ChromaLayers
) -> None:
    reopened = ChromaLayers.open(tmp_path, None, "t")
    assert sorted(reopened.stored_hashes("component")) == ["a::p0", "a::p1", "b::p0"]
    reopened.delete("component", ["b::p0"])
    assert sorted(ChromaLayers.open(tmp_path, None, "t").stored_hashes("component")) == [
        "a::p0",
        "a::p1",
    ]


def test_a_missing_layer_is_an_index_error_naming_it(layers: ChromaLayers) -> None:
    with pytest.raises(IndexNotFoundError, match="no image vectors .collection t_images."):
        layers.stored_metadata("image")
