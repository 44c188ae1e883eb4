"""The build's store of component terms gives exactly what analysing the texts gives."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

import tools.component_terms as component_terms
from nodes.core.lexical import covered_terms, lexical_bm25, lexical_terms
from tools.component_terms import (
    TERMS_FILE,
    ComponentTerms,
    file_digest,
    full_text,
    lexical_text,
    sync_component_terms,
)
from tools.corpus_index import CorpusIndex, open_index
from tools.filing_catalog import filings_of
from tools.filing_pages import document_pages
from tools.manifest import GRAPH_FILE
from tools.sparse_index import analyze, bm25_within
from tools.word_stems import QUERY_STOPWORDS


def components(index: CorpusIndex) -> list[str]:
    graph = index.graph
    return [c for doc in graph.documents() for c in graph.children(doc)]


def analysed(texts: list[str]) -> list[list[str]]:
    return [analyze([text], QUERY_STOPWORDS)[0] for text in texts]


@pytest.fixture(params=["mini_index", "filing_index"])
def built(request: pytest.FixtureRequest, tmp_path: Path) -> CorpusIndex:
    """A copy of a built index (the tests may break its store)."""
    source: Path = request.getfixturevalue(request.param)
    return open_index(Path(shutil.copytree(source, tmp_path / "index")))


def test_the_build_stores_every_components_terms(built: CorpusIndex) -> None:
    store = built.component_terms()
    assert store is not None
    ids = components(built)
    pages = [p for doc in filings_of(built.graph) for p in document_pages(built.graph, doc)]
    assert len(store) == len(ids) + len(pages)  # each filing page's words too
    assert [store.page(p.key) for p in pages] == analysed([p.text for p in pages])
    full = [store.full(c) for c in ids]
    assert full == analysed([full_text(built.graph, c) for c in ids])
    lexical = [store.lexical(c) for c in ids]
    assert lexical == analysed([lexical_text(built.graph, c) for c in ids])
    assert any(f != x for f, x in zip(full, lexical, strict=True)) == (
        built.manifest.corpus.kind != "bundle"  # only filings' components have headings
    )


def test_a_store_of_another_graph_is_not_trusted(
    built: CorpusIndex, caplog: pytest.LogCaptureFixture
) -> None:
    ids = components(built)
    expected = (lexical_terms(built, ids), covered_terms(built, ids[:3], ["Polonium"]))
    graph_file = built.index_dir / GRAPH_FILE
    graph_file.write_text(graph_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    again = CorpusIndex.open(built.index_dir)
    with caplog.at_level(logging.INFO, logger="tools.component_terms"):
        assert again.component_terms() is None
    assert f"fif build CORPUS --index {built.index_dir}" in caplog.text
    # without the store every lookup analyses the texts, to the same terms
    assert (lexical_terms(again, ids), covered_terms(again, ids[:3], ["Polonium"])) == expected


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_store_is_said_and_skipped(
    built: CorpusIndex, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    path = built.index_dir / TERMS_FILE
    data = path.read_bytes()
    path.write_bytes(b"not a numpy archive" if damage == "garbage" else data[: len(data) // 2])
    digest = file_digest(built.index_dir / GRAPH_FILE)
    with caplog.at_level(logging.WARNING):
        assert ComponentTerms.load(built.index_dir / TERMS_FILE, digest) is None
    assert TERMS_FILE in caplog.text and "analysed at query time" in caplog.text


def test_nodes_outside_the_store_are_analysed(built: CorpusIndex) -> None:
    ids = components(built)
    part = next(child for c in ids for child in built.graph.children(c))
    assert built.component_terms() is not None
    assert covered_terms(built, [part]) == set(analysed([full_text(built.graph, part)])[0])
    assert lexical_terms(built, [part, ids[0]]) == analysed(
        [lexical_text(built.graph, part), lexical_text(built.graph, ids[0])]
    )


def test_a_current_store_is_kept_and_a_stale_one_rebuilt(built: CorpusIndex) -> None:
    graph_file = built.index_dir / GRAPH_FILE
    assert sync_component_terms(built.index_dir, built.graph, graph_file) == "kept"
    graph_file.write_text(graph_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert sync_component_terms(built.index_dir, built.graph, graph_file) == "indexed"
    assert ComponentTerms.load(built.index_dir / TERMS_FILE, file_digest(graph_file)) is not None


def test_bm25_among_stored_components_scores_as_their_texts(built: CorpusIndex) -> None:
    ids = components(built)
    part = next(child for c in ids for child in built.graph.children(c))
    assert built.component_terms() is not None
    for query in ["Polonium discovered by Marie Curie", "flag of Warsaw", "net revenue", "zzz"]:
        for nodes in (ids, ids[::-2], [part, *ids[:3]], []):
            texts = [lexical_text(built.graph, n) for n in nodes]
            assert lexical_bm25(built, query, nodes) == bm25_within(query, texts)


def test_kept_term_sets_stay_bounded(built: CorpusIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(component_terms, "KEPT_SETS", 2)
    store = built.component_terms()
    assert store is not None
    ids = components(built)[:5]
    assert [store.full_set(c) for c in ids] == [frozenset(store.full(c) or ()) for c in ids]
    assert len(store._full_sets) <= 2
