"""The build's numpy copy of the vectors: the same rows as Chroma, used only when current."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

import tools.vector_mirror as mirror
from tools.corpus_index import CorpusIndex
from tools.index import INDEX_LAYERS
from tools.vector_mirror import MIRROR_DIR, chroma_vectors, in_reading_order, read_mirror


@pytest.fixture
def built(mini_index: Path, tmp_path: Path) -> CorpusIndex:
    """A copy of the mini index (the tests may break its copy of the vectors)."""
    return CorpusIndex.open(Path(shutil.copytree(mini_index, tmp_path / "index")))


def count_chroma_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []

    def counted(layers, layer):  # type: ignore[no-untyped-def]
        reads.append(layer)
        return chroma_vectors(layers, layer)

    monkeypatch.setattr(mirror, "chroma_vectors", counted)
    return reads


def test_the_copy_holds_every_layer_as_chroma_does_in_reading_order(built: CorpusIndex) -> None:
    token = built.manifest.vectors_token
    assert token
    present = [layer for layer in INDEX_LAYERS if built.layers.has(layer)]
    assert {"document", "component", "subcomponent"} <= set(present)
    order = built.graph.reading_order()
    for layer in present:
        copied = read_mirror(built.index_dir, layer, token)
        assert copied is not None
        ids, matrix = chroma_vectors(built.layers, layer)
        assert sorted(copied[0]) == sorted(ids)
        assert copied[0] == sorted(ids, key=lambda node: order.get(node, len(order)))
        rows = {node: row for row, node in enumerate(ids)}
        assert np.array_equal(copied[1], matrix[[rows[node] for node in copied[0]]])
    for layer in set(INDEX_LAYERS) - set(present):
        assert not (built.index_dir / MIRROR_DIR / f"{layer}.npz").exists()


def test_opening_reads_the_copy_not_chroma(
    built: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_chroma_reads(monkeypatch)
    again = CorpusIndex.open(built.index_dir)
    query = again.embed_query("flag of Warsaw")
    assert again.cache.top_documents("subcomponent", query, 3)
    assert reads == []


def test_a_copy_of_another_build_is_ignored(
    built: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    query = built.embed_query("flag of Warsaw")
    expected = built.cache.top_documents("subcomponent", query, 3)
    manifest = built.manifest.model_copy(update={"vectors_token": "an-older-build"})
    manifest.save(built.index_dir)
    reads = count_chroma_reads(monkeypatch)
    again = CorpusIndex.open(built.index_dir)
    assert again.cache.top_documents("subcomponent", query, 3) == expected
    assert reads == ["subcomponent"]


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_copy_is_said_and_chroma_read(
    built: CorpusIndex,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    damage: str,
) -> None:
    path = built.index_dir / MIRROR_DIR / "component.npz"
    data = path.read_bytes()
    path.write_bytes(b"not an archive" if damage == "garbage" else data[: len(data) // 2])
    reads = count_chroma_reads(monkeypatch)
    again = CorpusIndex.open(built.index_dir)
    with caplog.at_level(logging.WARNING):
        assert again.cache.similarities("component", again.embed_query("Warsaw"), ["x"]) == {}
    assert reads == ["component"]
    assert "component.npz is unreadable" in caplog.text


def test_rows_sort_by_reading_order_unknown_ids_last_ties_as_given() -> None:
    matrix = np.arange(10, dtype=np.float32).reshape(5, 2)
    ids, moved = in_reading_order(["c", "x", "a", "y", "b"], matrix, {"a": 0, "b": 1, "c": 2})
    assert ids == ["a", "b", "c", "x", "y"]
    assert moved.tolist() == [[4, 5], [8, 9], [0, 1], [2, 3], [6, 7]]


def test_rows_already_in_order_are_not_copied() -> None:
    matrix = np.ones((3, 2), dtype=np.float32)
    ids, same = in_reading_order(["a", "b", "zz"], matrix, {"a": 0, "b": 1})
    assert ids == ["a", "b", "zz"] and same is matrix
