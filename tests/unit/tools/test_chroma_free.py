"""A search of the build's copy of the vectors opens no Chroma, and ranks as Chroma does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tools.chroma_connect as chroma_connect
from state.core import Granularity
from state.fif_context import FiFContext
from tools.corpus_index import CorpusIndex
from tools.index import IndexLayer
from tools.search import dense_search, score_vec
from tools.vector_mirror import MIRROR_DIR
from tools.widening import ScoredNode

QUERIES = ["flag of Warsaw", "the capital of Poland", "river", "who founded the city"]


@pytest.fixture
def index_dir(mini_index: Path, tmp_path: Path) -> Path:
    """A copy of the mini index (a test may remove its copy of the vectors)."""
    return Path(shutil.copytree(mini_index, tmp_path / "index"))


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record each connection to Chroma (made as before)."""
    made: list[Path] = []
    connect = chroma_connect.connect

    def counted(index_dir: Path, chroma_url: str | None) -> object:
        made.append(index_dir)
        return connect(index_dir, chroma_url)

    monkeypatch.setattr(chroma_connect, "connect", counted)
    return made


def untied(ranking: list[ScoredNode]) -> list[str | None]:
    """Return each entry's id, None where another entry has the same score (to 1e-6)."""
    scores = [node.score for node in ranking]
    return [
        None if sum(abs(score - other) < 1e-6 for other in scores) > 1 else node.node_id
        for node, score in zip(ranking, scores, strict=True)
    ]


@pytest.mark.parametrize("granularity", ["component", "subcomponent"])
def test_exact_search_ranks_as_chroma_does(index_dir: Path, granularity: Granularity) -> None:
    """Same scores at every rank; the same ids wherever the score is not tied.

    The hash embedder ties often; Chroma orders tied cosines by their rounding, the exact
    search by id (a tie with the next one down counts too).
    """
    index = CorpusIndex.open(index_dir)
    for question in QUERIES:
        for k in (1, 3, 10):
            chroma = dense_search(index, question, granularity, k + 1)
            exact = dense_search(index, question, granularity, k + 1, exact=True)
            assert [n.score for n in exact] == pytest.approx([n.score for n in chroma], abs=1e-6)
            assert untied(exact)[:k] == untied(chroma)[:k]
            assert dense_search(index, question, granularity, k, exact=True) == exact[:k]


def test_a_search_of_the_copy_opens_no_chroma(index_dir: Path, connections: list[Path]) -> None:
    index = CorpusIndex.open(index_dir)
    assert index.mirrored == {"document", "component", "subcomponent"}
    assert dense_search(index, "flag of Warsaw", "subcomponent", 5, exact=True)
    assert score_vec(index, "flag of Warsaw", "document", "document", 3)  # counts the layer
    assert connections == []
    assert dense_search(index, "flag of Warsaw", "subcomponent", 5)  # Chroma's own search
    assert len(connections) == 1


def test_counts_come_from_the_copy_or_else_from_chroma(
    index_dir: Path, connections: list[Path]
) -> None:
    copied = CorpusIndex.open(index_dir)
    layers: tuple[IndexLayer, ...] = ("document", "subcomponent")
    counts = {layer: copied.layers.count(layer) for layer in layers}
    assert connections == []
    for path in index_dir.rglob(f"{MIRROR_DIR}/*.npz"):
        path.unlink()
    read = CorpusIndex.open(index_dir)
    assert read.mirrored == frozenset()
    assert {layer: read.layers.count(layer) for layer in layers} == counts
    assert len(connections) == 1


def test_a_fif_run_on_the_copy_opens_no_chroma(index_dir: Path, connections: list[Path]) -> None:
    from graph_agent.api import ask

    result = ask("Which river flows through Warsaw?", FiFContext(index_dir=str(index_dir)))
    assert result.ranking
    assert connections == []
