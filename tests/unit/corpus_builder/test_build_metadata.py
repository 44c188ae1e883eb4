"""What the index records besides vectors: metadata keys, summarizer, region proposer."""

from pathlib import Path

from tools.index import METADATA_KEYS, ChromaLayers
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest


def test_every_vector_carries_doc_id_component_id_and_type(mini_index: Path) -> None:
    manifest = Manifest.load(mini_index)
    graph = LayeredGraph.load(mini_index / GRAPH_FILE)
    layers = ChromaLayers.open(mini_index, None, manifest.name)
    for layer in ("document", "component", "subcomponent"):
        layers.collection(layer)
        stored = layers.stored_metadata(layer)
        assert stored, layer
        for node_id, meta in stored.items():
            assert set(meta) == {*METADATA_KEYS, "hash"}, (layer, node_id)
            view = graph.node(node_id)
            expected = "document" if layer == "document" else view.kind
            assert (meta["doc_id"], meta["type"]) == (view.doc_id, expected)


def test_query_hits_read_the_type_key(mini_index: Path) -> None:
    manifest = Manifest.load(mini_index)
    layers = ChromaLayers.open(mini_index, None, manifest.name)
    vector = layers.vectors("component", ["nobel_prize_physics::t0"])["nobel_prize_physics::t0"]
    (hit,) = layers.query("component", vector, 1)
    assert (hit.node_id, hit.kind) == ("nobel_prize_physics::t0", "table")


def test_the_manifest_names_the_summarizer_and_the_region_proposer(mini_index: Path) -> None:
    manifest = Manifest.load(mini_index)
    assert manifest.options == {
        "link_mentions": False,
        "summarizer": "extractive-v1",
        "regions": "fixed-2x2",
        "sentence_vectors": "standalone",
    }
    assert manifest.summaries == {"written": 8, "reused": 0, "fallback": 0}
