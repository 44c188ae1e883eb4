from pathlib import Path

import numpy as np
import pytest

from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import descendants
from tools.index import Hit
from tools.search import dense_search, score_vec, similarities
from tools.widening import aggregate

FLAG_QUESTION = "Flag of Warsaw: two horizontal stripes, yellow above red"
COMPONENT_KINDS = {"paragraph", "table", "image"}


@pytest.fixture(scope="module")
def index(mini_index: Path) -> CorpusIndex:
    return CorpusIndex.open(mini_index)


def hit(node_id: str, score: float) -> Hit:
    parts = node_id.split("::")
    return Hit(node_id, parts[0], "::".join(parts[:2]), "sentence", score)


HITS = [
    hit("warsaw::p0::s1", 0.9),
    hit("warsaw::p0::s0", 0.8),
    hit("polonium::p0::s0", 0.7),
    hit("warsaw::i0::o2", 0.6),
]


def test_aggregate_keeps_the_best_descendant_per_component(index: CorpusIndex) -> None:
    result = aggregate(index, HITS, "component", "subcomponent", 10)
    assert [(n.node_id, n.doc_id, n.kind, n.score, n.evidence) for n in result] == [
        ("warsaw::p0", "warsaw", "paragraph", 0.9, "warsaw::p0::s1"),
        ("polonium::p0", "polonium", "paragraph", 0.7, "polonium::p0::s0"),
        ("warsaw::i0", "warsaw", "image", 0.6, "warsaw::i0::o2"),
    ]
    assert [n.node_id for n in aggregate(index, HITS, "component", "subcomponent", 2)] == [
        "warsaw::p0",
        "polonium::p0",
    ]


def test_aggregate_to_documents_at_each_granularity(index: CorpusIndex) -> None:
    by_doc = aggregate(index, HITS, "document", "subcomponent", 10)
    assert [(n.node_id, n.kind, n.score, n.evidence) for n in by_doc] == [
        ("warsaw", "document", 0.9, "warsaw::p0::s1"),
        ("polonium", "document", 0.7, "polonium::p0::s0"),
    ]
    summaries = [Hit("radium", "radium", "", "document", 0.5)]
    assert [n.node_id for n in aggregate(index, summaries, "document", "document", 3)] == ["radium"]


def exact_max(index: CorpusIndex, doc_id: str, layer: int, vector: np.ndarray) -> float:
    layer_name = {0: "document", 1: "component", 2: "subcomponent"}[layer]
    nodes = descendants(index.graph, doc_id, layer)
    stored = index.layers.vectors(layer_name, nodes)  # type: ignore[arg-type]
    return max(float(np.dot(v, vector)) for v in stored.values())


@pytest.mark.parametrize("granularity", ["document", "component", "subcomponent"])
def test_score_vec_of_a_document_is_the_max_over_its_descendants(
    index: CorpusIndex, granularity: str
) -> None:
    docs = sorted(index.graph.nodes_at(0))
    vector = index.embed_query("Marie Curie discovered polonium and radium in 1898")
    result = score_vec(index, vector, "document", granularity, len(docs), doc_ids=docs)  # type: ignore[arg-type]
    assert sorted(n.node_id for n in result) == docs
    layer = {"document": 0, "component": 1, "subcomponent": 2}[granularity]
    for node in result:
        assert node.score == pytest.approx(exact_max(index, node.node_id, layer, vector), abs=1e-4)
    assert [n.score for n in result] == sorted((n.score for n in result), reverse=True)


def test_score_vec_of_components_at_subcomponent_granularity(index: CorpusIndex) -> None:
    vector = index.embed_query("joint researches on radiation phenomena Marie Curie")
    result = score_vec(index, vector, "component", "subcomponent", 3)
    table = next(n for n in result if n.node_id == "nobel_prize_physics::t0")
    rows = descendants(index.graph, "nobel_prize_physics::t0", 2)
    stored = index.layers.vectors("subcomponent", rows)
    best = max(rows, key=lambda r: float(np.dot(stored[r], vector)))
    assert table.evidence == best == "nobel_prize_physics::t0::r4"


def test_score_vec_restricted_to_a_document_set(index: CorpusIndex) -> None:
    result = score_vec(
        index, "Poland", "component", "component", 10, doc_ids=["warsaw", "polonium"]
    )
    assert sorted(n.node_id for n in result) == [
        "polonium::p0",
        "polonium::p1",
        "warsaw::i0",
        "warsaw::p0",
        "warsaw::p1",
    ]
    assert score_vec(index, "Poland", "component", "subcomponent", 10, doc_ids=[]) == []


def test_components_cannot_be_scored_at_document_granularity(index: CorpusIndex) -> None:
    with pytest.raises(ValueError, match="component or subcomponent granularity"):
        score_vec(index, "Poland", "component", "document", 5)


@pytest.mark.parametrize("granularity", ["component", "subcomponent"])
def test_dense_search_ranks_components_best_first(index: CorpusIndex, granularity: str) -> None:
    meter = CostMeter()
    result = dense_search(index, FLAG_QUESTION, granularity, k=4, meter=meter)  # type: ignore[arg-type]
    assert result[0].node_id == "warsaw::i0"
    assert len(result) == 4 and {n.kind for n in result} <= COMPONENT_KINDS
    assert all(index.graph.node(n.node_id).layer == 1 for n in result)
    assert [n.score for n in result] == sorted((n.score for n in result), reverse=True)
    assert meter.vector_ms > 0 and meter.embedding_ms > 0


def test_dense_search_at_document_granularity_groups_components_by_document(
    index: CorpusIndex,
) -> None:
    docs = score_vec(index, FLAG_QUESTION, "document", "document", 3)
    result = dense_search(index, FLAG_QUESTION, "document", k=6)
    assert {n.doc_id for n in result} <= {d.node_id for d in docs}
    rank = {d.node_id: r for r, d in enumerate(docs)}
    assert [rank[n.doc_id] for n in result] == sorted(rank[n.doc_id] for n in result)
    assert result[0].doc_id == "warsaw" and result[0].node_id == "warsaw::i0"
    assert len(result) == 6


def test_a_query_vector_and_its_text_give_the_same_ranking(index: CorpusIndex) -> None:
    by_text = dense_search(index, FLAG_QUESTION, "component", k=5)
    by_vector = score_vec(index, index.embed_query(FLAG_QUESTION), "component", "component", 5)
    assert [n.node_id for n in by_text] == [n.node_id for n in by_vector]


def test_similarities_are_exact_cosines_of_known_nodes(index: CorpusIndex) -> None:
    vector = index.embed_query(FLAG_QUESTION)
    scores = similarities(index, vector, "component", ["warsaw::i0", "radium::p0", "nowhere::p0"])
    assert set(scores) == {"warsaw::i0", "radium::p0"}
    stored = index.layers.vectors("component", ["warsaw::i0"])["warsaw::i0"]
    assert scores["warsaw::i0"] == pytest.approx(float(np.dot(stored, vector)), abs=1e-5)


def test_score_vec_asks_for_more_hits_until_k_distinct_components(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tools.widening

    # one hit per wanted component: sentences of one paragraph crowd the first page out
    oversample = {**tools.widening.OVERSAMPLE, "subcomponent": 1}
    monkeypatch.setattr(tools.widening, "OVERSAMPLE", oversample)
    with_parts = {
        c
        for doc in index.graph.nodes_at(0)
        for c in index.graph.children(doc)
        if index.graph.children(c)
    }
    found = score_vec(index, FLAG_QUESTION, "component", "subcomponent", len(with_parts))
    assert {n.node_id for n in found} == with_parts
    scores = [n.score for n in found]
    assert scores == sorted(scores, reverse=True)


def test_exact_document_pass_agrees_with_chroma(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tools.search

    query = "Where was Marie Curie born?"
    for granularity in ("component", "subcomponent"):
        exact = score_vec(index, query, "document", granularity, 3)  # type: ignore[arg-type]
        monkeypatch.setattr(tools.search, "EXACT_DOCUMENTS", 0)  # force Chroma's widening
        approximate = score_vec(index, query, "document", granularity, 3)  # type: ignore[arg-type]
        monkeypatch.undo()
        assert [n.node_id for n in exact] == [n.node_id for n in approximate]
        assert [n.score for n in exact] == pytest.approx([n.score for n in approximate], abs=1e-5)
        assert [n.evidence for n in exact] == [n.evidence for n in approximate]


def test_scoped_component_search_is_exact_and_agrees_with_chroma(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tools.search

    docs = ["warsaw", "marie_curie", "polonium"]
    for query in ("Where was Marie Curie born?", FLAG_QUESTION):
        for granularity in ("component", "subcomponent"):
            exact = score_vec(index, query, "component", granularity, 5, docs)  # type: ignore[arg-type]
            with monkeypatch.context() as chroma:
                chroma.setattr(tools.search, "EXACT_DOCUMENTS", 0)  # Chroma's filtered query
                approximate = score_vec(index, query, "component", granularity, 5, docs)  # type: ignore[arg-type]
            assert {n.doc_id for n in exact} <= set(docs) and len(exact) == 5
            assert [n.node_id for n in exact] == [n.node_id for n in approximate]
            assert [n.score for n in exact] == pytest.approx(
                [n.score for n in approximate], abs=1e-5
            )
            assert [(n.doc_id, n.kind, n.evidence) for n in exact] == [
                (n.doc_id, n.kind, n.evidence) for n in approximate
            ]


def test_whole_layer_document_search_agrees_with_chroma(
    index: CorpusIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tools.search

    monkeypatch.setattr(tools.search, "EXACT_DOCUMENTS", 0)  # past the descendant pass
    meter = CostMeter()
    for query in ("Where was Marie Curie born?", FLAG_QUESTION):
        for granularity in ("document", "component", "subcomponent"):
            exact = score_vec(index, query, "document", granularity, 4, meter=meter)  # type: ignore[arg-type]
            with monkeypatch.context() as chroma:
                chroma.setattr(tools.search, "EXACT_LAYER_ROWS", 0)
                approximate = score_vec(index, query, "document", granularity, 4)  # type: ignore[arg-type]
            assert [n.node_id for n in exact] == [n.node_id for n in approximate]
            assert [n.score for n in exact] == pytest.approx(
                [n.score for n in approximate], abs=1e-5
            )
            assert [(n.doc_id, n.kind, n.evidence) for n in exact] == [
                (n.node_id, "document", n.evidence) for n in approximate
            ]
    assert meter.as_dict()["vector_ms"] > 0
