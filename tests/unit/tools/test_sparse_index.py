import json
from pathlib import Path

import pytest

from tools import word_stems
from tools.corpus_index import CorpusIndex
from tools.errors import IndexNotFoundError
from tools.rank_fusion import fused_order, reciprocal_rank_fusion
from tools.search import dense_search, score_nodes, score_sparse
from tools.sparse_index import (
    QUERY_STOPWORDS,
    ROWS_FILE,
    SPARSE_DIR,
    SparseLayer,
    SparseLayers,
    SparseRow,
    _bm25s_tokenize,
    _tokenize,
    analyze,
    sync_sparse_layers,
)


def row(node_id: str) -> SparseRow:
    doc = node_id.split("::")[0]
    return SparseRow(node_id, doc, "::".join(node_id.split("::")[:2]), "sentence")


ITEMS = [
    (row("a::p0::s0"), "The stadium was previously known as Vojo Kushi Stadium."),
    (row("b::p0::s0"), "Vllaznia is the oldest club in Albania."),
    (row("b::p0::s1"), "The club plays in red and blue."),
    (row("c::p0::s0"), "Clubs of Albania compete in the Kategoria Superiore."),
]


def test_analyze_stems_lowercases_and_drops_stopwords() -> None:
    assert analyze(["The Clubs of ALBANIA were running"]) == [["club", "albania", "were", "run"]]
    assert analyze([]) == []


TOKENIZER_TEXTS = [
    "The Clubs of ALBANIA were running, and the club ran.",
    "Çelik Zenica's 1998–99 season: 2-1 on aggregate (away goals) — Ünal scored",
    "",
    "a I x 7 __init__ what WHICH who's e-mail 3.5% naïve café Straße",
    "Rick Stockstill was hired in 2005 as head coach of Middle Tennessee",
]


def test_the_stopwords_are_bm25s_english_list() -> None:
    from bm25s.stopwords import STOPWORDS_EN as BM25S_STOPWORDS

    assert tuple(word_stems.STOPWORDS_EN) == tuple(BM25S_STOPWORDS)


@pytest.mark.parametrize("stopwords", ["en", QUERY_STOPWORDS])
def test_tokenize_gives_the_tokens_bm25s_gives(stopwords: str | list[str]) -> None:
    expected = _bm25s_tokenize(TOKENIZER_TEXTS, stopwords)  # bm25s's own tokenizer
    assert _tokenize(TOKENIZER_TEXTS, stopwords) == expected
    assert analyze(TOKENIZER_TEXTS * 20, stopwords) == [list(t) for t in expected] * 20  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="stopwords 'de'"):
        _tokenize(TOKENIZER_TEXTS, "de")


def test_kept_stems_give_the_same_tokens_when_the_cache_fills(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = _bm25s_tokenize(TOKENIZER_TEXTS, "en")
    monkeypatch.setattr(word_stems, "_stems", {})
    monkeypatch.setattr(word_stems, "STEM_CACHE_LIMIT", 12)  # fewer than the texts' words
    for _ in range(3):  # first meeting, then kept stems, then a cleared cache
        assert _tokenize(TOKENIZER_TEXTS, "en") == expected
        assert len(word_stems._stems) <= 40


def test_query_ranks_by_bm25_and_breaks_ties_by_id() -> None:
    layer = SparseLayer.build(ITEMS)
    hits = layer.query("oldest club in Albania", 10)
    assert [h.node_id for h in hits][:1] == ["b::p0::s0"]
    assert {h.node_id for h in hits} == {"b::p0::s0", "b::p0::s1", "c::p0::s0"}
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
    assert layer.query("quantum chromodynamics", 10) == []  # no term in the vocabulary
    assert layer.query("the of and", 10) == []  # stopwords only


def test_doc_filter_masks_inside_the_scoring() -> None:
    layer = SparseLayer.build(ITEMS)
    inside = layer.query("club Albania", 1, doc_ids=["c"])
    assert [h.node_id for h in inside] == ["c::p0::s0"]  # not the global best, filtered away
    assert layer.query("club Albania", 5, doc_ids=["missing"]) == []
    assert [h.doc_id for h in layer.query("club", 5, doc_ids=["b"])] == ["b", "b"]


def test_saved_layer_loads_with_the_same_answers(tmp_path: Path) -> None:
    layer = SparseLayer.build(ITEMS)
    layer.save(tmp_path / "layer")
    loaded = SparseLayer.load(tmp_path / "layer")
    assert loaded is not None
    assert loaded.query("stadium Kushi", 3) == layer.query("stadium Kushi", 3)
    assert not list((tmp_path / "layer").glob("*.pkl"))


def test_empty_layer_and_unfinished_folder(tmp_path: Path) -> None:
    SparseLayer.build([]).save(tmp_path / "empty")
    empty = SparseLayer.load(tmp_path / "empty")
    assert empty is not None and empty.query("anything", 5) == []
    (tmp_path / "half").mkdir()
    assert SparseLayer.load(tmp_path / "half") is None  # no rows file: a build stopped


def test_sync_keeps_unchanged_layers_and_reindexes_changed_ones(tmp_path: Path) -> None:
    items = {"document": [], "component": ITEMS[:2], "subcomponent": ITEMS}
    assert set(sync_sparse_layers(tmp_path, items).values()) == {"indexed"}
    again = sync_sparse_layers(tmp_path, items)
    assert again == {"document": "kept", "component": "kept", "subcomponent": "kept"}
    changed = {**items, "subcomponent": [*ITEMS[:3], (row("c::p0::s0"), "Renamed text.")]}
    assert sync_sparse_layers(tmp_path, changed)["subcomponent"] == "indexed"
    layers = SparseLayers.open(tmp_path)
    assert layers.query("subcomponent", "renamed", 5)[0].node_id == "c::p0::s0"


def test_older_format_is_rebuilt(tmp_path: Path) -> None:
    items = {"document": [], "component": [], "subcomponent": ITEMS}
    sync_sparse_layers(tmp_path, items)
    rows_file = tmp_path / SPARSE_DIR / "subcomponent" / ROWS_FILE
    payload = json.loads(rows_file.read_text())
    rows_file.write_text(json.dumps({**payload, "format": 0}))
    assert sync_sparse_layers(tmp_path, items)["subcomponent"] == "indexed"


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=1)
    assert fused == pytest.approx({"a": 1 / 2, "b": 1 / 3 + 1 / 2, "c": 1 / 3})
    assert [item for item, _ in fused_order([["a", "b"], ["b", "c"]], k=60)] == ["b", "a", "c"]
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=-1)


@pytest.fixture(scope="module")
def index(mini_index: Path) -> CorpusIndex:
    return CorpusIndex.open(mini_index)


def test_built_index_has_sparse_layers_for_every_layer(index: CorpusIndex) -> None:
    sparse = index.sparse()
    assert set(sparse.layers) == {"document", "component", "subcomponent"}
    subcomponents = sum(1 for _ in index.graph.nodes_at(2))
    assert len(sparse.layers["subcomponent"].rows) == subcomponents
    assert set(index.manifest.sparse.values()) == {"indexed"}


def test_sparse_search_finds_rare_words_and_aggregates_per_component(index: CorpusIndex) -> None:
    found = score_sparse(index, "polonium radium elements 1898", "component", "subcomponent", 3)
    assert found[0].node_id == "marie_curie::p1"
    assert len({n.node_id for n in found}) == len(found)
    docs = score_sparse(index, "polonium", "document", "subcomponent", 5, doc_ids=["pierre_curie"])
    assert {n.node_id for n in docs} <= {"pierre_curie"}


def test_hybrid_fuses_dense_and_sparse(index: CorpusIndex) -> None:
    question = "Which elements did the Curies discover in 1898?"
    ranked = {
        mode: score_nodes(index, question, "component", "subcomponent", 50, mode)  # type: ignore[arg-type]
        for mode in ("dense", "sparse")
    }
    hybrid = score_nodes(index, question, "component", "subcomponent", 5, "hybrid")
    pool = {n.node_id for nodes in ranked.values() for n in nodes}
    assert len(hybrid) == 5 and {n.node_id for n in hybrid} <= pool
    assert hybrid[0].node_id in {ranked["dense"][0].node_id, ranked["sparse"][0].node_id}
    assert all(0 < n.score <= 2 / 61 for n in hybrid)  # RRF scores with k = 60
    with pytest.raises(ValueError, match="unknown search mode"):
        score_nodes(index, question, "component", "subcomponent", 5, "fuzzy")  # type: ignore[arg-type]


def test_search_cli_modes(mini_index: Path, run_fif_main) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_fif_main(
        "search", "polonium radium", "--index", str(mini_index), "--mode", "sparse", "--json"
    )
    assert code == 0 and json.loads(out)[0]["component_id"] == "marie_curie::p1"
    code, _, err = run_fif_main("search", "x", "--index", str(mini_index), "--mode", "fuzzy")
    assert code != 0 and "fuzzy" in err


def test_single_shot_search_respects_doc_ids_in_every_mode(index: CorpusIndex) -> None:
    for mode in ("dense", "sparse", "hybrid"):
        found = dense_search(index, "Nobel Prize physics", k=5, mode=mode, doc_ids=["pierre_curie"])
        assert found and {n.doc_id for n in found} == {"pierre_curie"}, mode


def test_index_without_sparse_files_names_the_fix(mini_index: Path, tmp_path: Path) -> None:
    import shutil

    copy = Path(shutil.copytree(mini_index, tmp_path / "old"))
    shutil.rmtree(copy / SPARSE_DIR)
    with pytest.raises(IndexNotFoundError, match="fif build"):
        SparseLayers.open(copy)


def test_terms_share_the_index_stems_and_drop_question_words() -> None:
    from tools.sparse_index import bm25_within, terms

    assert terms("Which clubs were founded?") == terms("club founded")
    assert "which" not in terms("Which one") and "club" in terms("CLUBS")
    scores = bm25_within("Middle Tennessee 2-1", ["Middle Tennessee won 2-1", "Tennessee lost", ""])
    assert scores[0] > scores[1] > scores[2] == 0.0
    assert bm25_within("the of", ["a text"]) == [0.0]  # nothing to match


def test_coverage_counts_stemmed_content_terms() -> None:
    from nodes.core.lexical import content_words, coverage

    assert coverage("Which clubs won titles?", "The club has won three title races.") == 1.0
    assert coverage("Which clubs won titles?", "The club lost.") == pytest.approx(1 / 3)
    assert coverage("what is it", "anything") == 1.0  # no content word to cover
    assert content_words("Which Club, which club and the Stadium?") == ["club", "stadium"]
