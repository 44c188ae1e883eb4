from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from corpus_builder import embed_stage
from corpus_builder.embed_stage import EmbedItem, EmbedStats, IncrementalIndexer, content_hash
from tools.embedders import HashEmbedder
from tools.index import ChromaLayers


class CountingEmbedder:
    """The hash embedder, recording every batch it is asked to embed."""

    def __init__(self, dim: int = 16, fail_after: int | None = None) -> None:
        self.inner = HashEmbedder(dim)
        self.model_id, self.dim = self.inner.model_id, dim
        self.batches: list[list[str]] = []
        self.fail_after = fail_after

    @property
    def texts(self) -> list[str]:
        return [text for batch in self.batches for text in batch]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_after is not None and len(self.batches) >= self.fail_after:
            raise KeyboardInterrupt("killed mid-build")
        self.batches.append(list(texts))
        return self.inner.embed(texts)


def items(**texts: str) -> list[EmbedItem]:
    return [EmbedItem(node, text, {"doc_id": node.split("_")[0]}) for node, text in texts.items()]


CORPUS = {"a_p0": "Warsaw is the capital of Poland.", "a_p1": "It lies on the Vistula.",
          "b_p0": "Radium is element 88.", "b_p1": "Warsaw is the capital of Poland."}  # fmt: skip


@pytest.fixture
def layers(tmp_path: Path) -> ChromaLayers:
    return ChromaLayers.open(tmp_path, None, "t")


def sync(layers: ChromaLayers, embedder: CountingEmbedder, layer: str = "component", **texts):
    stats = EmbedStats()
    IncrementalIndexer(layers, stats, show_progress=False).sync(layer, items(**texts), embedder)  # type: ignore[arg-type]
    return stats.counts


def test_first_sync_embeds_each_distinct_text_once(layers: ChromaLayers) -> None:
    embedder = CountingEmbedder()
    counts = sync(layers, embedder, **CORPUS)
    assert sorted(embedder.texts) == sorted(set(CORPUS.values()))
    assert counts["texts_embedded"] == 3 and counts["component_written"] == 4
    stored = layers.stored_hashes("component")
    assert stored == {node: content_hash("hash:16", text) for node, text in CORPUS.items()}
    vectors = layers.vectors("component", ["a_p0", "b_p1"])
    assert np.allclose(vectors["a_p0"], vectors["b_p1"])


def test_an_unchanged_corpus_embeds_and_writes_nothing(layers: ChromaLayers) -> None:
    sync(layers, CountingEmbedder(), **CORPUS)
    again = CountingEmbedder()
    counts = sync(layers, again, **CORPUS)
    assert again.batches == []
    assert counts == {"component_unchanged": 4, "component_deleted": 0}


def test_a_changed_text_is_the_only_one_embedded(layers: ChromaLayers) -> None:
    sync(layers, CountingEmbedder(), **CORPUS)
    embedder = CountingEmbedder()
    counts = sync(layers, embedder, **{**CORPUS, "b_p0": "Radium is element 88, a metal."})
    assert embedder.texts == ["Radium is element 88, a metal."]
    assert (counts["component_unchanged"], counts["component_written"]) == (3, 1)
    assert layers.stored_hashes("component")["b_p0"] == content_hash(
        "hash:16", "Radium is element 88, a metal."
    )


def test_removed_nodes_are_deleted(layers: ChromaLayers) -> None:
    sync(layers, CountingEmbedder(), **CORPUS)
    remaining = {k: v for k, v in CORPUS.items() if not k.startswith("b")}
    embedder = CountingEmbedder()
    counts = sync(layers, embedder, **remaining)
    assert embedder.batches == [] and counts["component_deleted"] == 2
    assert sorted(layers.stored_hashes("component")) == ["a_p0", "a_p1"]


def test_a_text_stored_in_another_layer_is_copied_not_embedded(layers: ChromaLayers) -> None:
    embedder = CountingEmbedder()
    stats = EmbedStats()
    indexer = IncrementalIndexer(layers, stats, show_progress=False)
    indexer.sync("component", items(**CORPUS), embedder)
    embedder.batches.clear()
    indexer.sync(
        "subcomponent", items(a_p0_s0="It lies on the Vistula.", a_p0_s1="New text."), embedder
    )
    assert embedder.texts == ["New text."]
    assert stats.counts["texts_reused"] == 1 and stats.counts["subcomponent_written"] == 2
    copied = layers.vectors("subcomponent", ["a_p0_s0"])["a_p0_s0"]
    assert np.allclose(copied, layers.vectors("component", ["a_p1"])["a_p1"])


def test_a_sync_killed_midway_resumes_without_loss_or_repeats(
    layers: ChromaLayers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_stage, "CHUNK", 2)
    texts = {f"d{n}_p0": f"Sentence number {n} about Warsaw." for n in range(7)}
    with pytest.raises(KeyboardInterrupt):
        sync(layers, CountingEmbedder(fail_after=2), **texts)
    assert layers.count("component") == 4  # two chunks of two were written before the kill
    resumed = CountingEmbedder()
    counts = sync(layers, resumed, **texts)
    assert len(resumed.texts) == 3 and counts["component_unchanged"] == 4
    assert sorted(layers.stored_hashes("component")) == sorted(texts)
    assert layers.count("component") == 7


def test_content_hash_depends_on_model_and_content() -> None:
    assert content_hash("hash:16", "x") == content_hash("hash:16", "x")
    assert content_hash("hash:16", "x") != content_hash("hash:32", "x")
    assert content_hash("hash:16", "x") != content_hash("hash:16", "y")


def test_an_index_with_old_metadata_keys_is_relabelled_without_embedding(
    layers: ChromaLayers,
) -> None:
    old = [EmbedItem(n, t, {"doc_id": n[0], "kind": "paragraph"}) for n, t in CORPUS.items()]
    IncrementalIndexer(layers, EmbedStats(), show_progress=False).sync(
        "component", old, CountingEmbedder()
    )
    new = [EmbedItem(n, t, {"doc_id": n[0], "type": "paragraph"}) for n, t in CORPUS.items()]
    stats, embedder = EmbedStats(), CountingEmbedder()
    IncrementalIndexer(layers, stats, show_progress=False).sync("component", new, embedder)
    assert embedder.batches == [] and stats.counts["component_relabelled"] == 4
    stored = layers.stored_metadata("component")
    assert stored["a_p0"] == {
        "doc_id": "a",
        "type": "paragraph",
        "hash": content_hash("hash:16", CORPUS["a_p0"]),
    }
    again = EmbedStats()
    IncrementalIndexer(layers, again, show_progress=False).sync("component", new, embedder)
    assert "component_relabelled" not in again.counts and embedder.batches == []


def test_a_rewritten_vector_loses_metadata_keys_no_longer_wanted(layers: ChromaLayers) -> None:
    stale = [EmbedItem("a_p0", "Old text.", {"doc_id": "a", "kind": "paragraph"})]
    IncrementalIndexer(layers, EmbedStats(), show_progress=False).sync(
        "component", stale, CountingEmbedder()
    )
    fresh = [EmbedItem("a_p0", "New text.", {"doc_id": "a", "type": "paragraph"})]
    IncrementalIndexer(layers, EmbedStats(), show_progress=False).sync(
        "component", fresh, CountingEmbedder()
    )
    assert set(layers.stored_metadata("component")["a_p0"]) == {"doc_id", "type", "hash"}
