"""Images found by their image vectors: global search, exact scoring, and the nodes using them."""

from pathlib import Path

import numpy as np
import pytest

from nodes.fif.hop import node_similarities
from nodes.fif.traversal import component_scores
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.late_interaction import component_profiles
from tools.search import best_per_parent, dense_search, score_vec, similarities

QUERY = "zebra stripes"
"""What the savanna picture shows; its caption ("Figure 1") says nothing of it."""
ZEBRA = "savanna::i0"
REGIONS = [f"{ZEBRA}::o{n}" for n in range(4)]


@pytest.fixture(scope="module")
def index(picture_index: Path) -> CorpusIndex:
    return CorpusIndex.open(picture_index)


@pytest.fixture(scope="module")
def captions(caption_index: Path) -> CorpusIndex:
    return CorpusIndex.open(caption_index)


def image_score(index: CorpusIndex, node: str, query: str) -> float:
    """The calibrated image score of a node, computed from the stored vectors."""
    scores = index.image_scores()
    assert scores is not None
    stored = index.layers.vectors("image", [node])[node]
    clip = float(stored @ index.image_embedder.embed([query])[0])  # type: ignore[union-attr]
    return float(scores.calibration.to_text_scale(np.array(clip)))


def text_score(index: CorpusIndex, layer: str, node: str, query: str) -> float:
    return index.cache.similarities(layer, index.embed_query(query), [node])[node]  # type: ignore[arg-type]


def test_without_image_vectors_the_caption_hides_the_picture(captions: CorpusIndex) -> None:
    found = dense_search(captions, QUERY, "component", k=6)
    zebra = next(n for n in found if n.node_id == ZEBRA)
    assert found[0].node_id != ZEBRA and zebra.score <= 0.0


@pytest.mark.parametrize("granularity", ["component", "subcomponent"])
def test_global_search_finds_the_picture_by_its_image_vector(
    index: CorpusIndex, granularity: str
) -> None:
    top = dense_search(index, QUERY, granularity, k=3)[0]  # type: ignore[arg-type]
    layer = "component" if granularity == "component" else "subcomponent"
    evidence = [ZEBRA] if granularity == "component" else REGIONS
    best = max(evidence, key=lambda node: image_score(index, node, QUERY))
    assert (top.node_id, top.kind) == (ZEBRA, "image")
    assert top.score == pytest.approx(image_score(index, best, QUERY), abs=1e-5)
    assert text_score(index, layer, best, QUERY) < top.score < 1.0  # not clipped
    assert top.evidence in evidence


def test_documents_are_found_through_their_pictures(index: CorpusIndex) -> None:
    top = score_vec(index, QUERY, "document", "subcomponent", 2)[0]
    assert top.node_id == "savanna" and top.evidence in REGIONS
    local = score_vec(index, QUERY, "component", "component", 5, doc_ids=["savanna", "warsaw"])
    assert local[0].node_id == ZEBRA
    assert score_vec(index, QUERY, "document", "document", 4)[0].score < 0.5  # summaries only


def test_exact_scores_take_the_better_of_caption_and_picture(index: CorpusIndex) -> None:
    vector = index.embed_query(QUERY)
    scores = similarities(index, vector, "component", [ZEBRA, "savanna::p0", "nowhere::p0"])
    assert set(scores) == {ZEBRA, "savanna::p0"}
    assert scores[ZEBRA] == pytest.approx(image_score(index, ZEBRA, QUERY), abs=1e-5)
    assert scores["savanna::p0"] == text_score(index, "component", "savanna::p0", QUERY)
    # the tower matches its caption better than its picture: the text score stays
    tower = similarities(index, "Palace of Culture Warsaw", "component", ["warsaw::i0"])
    assert tower["warsaw::i0"] == pytest.approx(
        text_score(index, "component", "warsaw::i0", "Palace of Culture Warsaw"), abs=1e-6
    )
    assert tower["warsaw::i0"] > image_score(index, "warsaw::i0", "Palace of Culture Warsaw")


def test_traversal_hops_and_lilac_score_pictures_by_their_image_vectors(
    index: CorpusIndex,
) -> None:
    vector, meter = index.embed_query(QUERY), CostMeter()
    expected = {node: image_score(index, node, QUERY) for node in [ZEBRA, *REGIONS]}
    per_doc = best_per_parent(index, vector, ["savanna"], "component", meter)
    assert per_doc["savanna"] == (pytest.approx(expected[ZEBRA], abs=1e-5), ZEBRA)
    score, evidence = component_scores(index, vector, [ZEBRA, "savanna::p0"], meter)[ZEBRA]
    assert evidence in REGIONS and score == pytest.approx(max(expected.values()), abs=1e-5)
    hop = node_similarities(index, vector, [ZEBRA, *REGIONS], meter)
    assert hop == pytest.approx(expected, abs=1e-5)
    profiles = component_profiles(index, [ZEBRA, "savanna::p0"], np.stack([vector]), meter)
    best = profiles.best[profiles.position()[ZEBRA], 0]
    assert best == pytest.approx(max(expected[r] for r in REGIONS), abs=1e-5)


def test_a_vector_the_index_did_not_make_is_scored_on_text_only(index: CorpusIndex) -> None:
    stranger = index.text_embedder.embed(["a zebra with stripes"])[0]
    nodes = [ZEBRA, *REGIONS, "savanna::p0"]
    assert index.similarities("component", stranger, nodes) == index.cache.similarities(
        "component", stranger, nodes
    )
    assert index.image_hits("component", stranger, 5, None) == []


def test_without_an_image_embedder_scoring_is_the_text_layer_alone(
    captions: CorpusIndex,
) -> None:
    vector = captions.embed_query(QUERY)
    nodes = [ZEBRA, *REGIONS, "savanna::p0"]
    for layer in ("component", "subcomponent"):
        assert captions.similarities(layer, vector, nodes) == captions.cache.similarities(
            layer, vector, nodes
        )
    scores = np.ones((2, 1), dtype=np.float32)
    assert captions.fold_image_scores([ZEBRA, "savanna::p0"], scores, vector[None]) is scores
    assert captions.image_hits("component", vector, 5, None) == []


@pytest.mark.parametrize("layer", ["component", "subcomponent"])
def test_several_queries_score_images_as_one_query_at_a_time(
    index: CorpusIndex, layer: str
) -> None:
    queries = np.stack([index.embed_query(q) for q in (QUERY, "a stone bridge")])
    parents = [ZEBRA, *index.graph.children("savanna")][:4]
    names, best = index.best_per_parent_of_each(layer, queries, parents)  # type: ignore[arg-type]
    for column, query in enumerate(queries):
        one = index.best_per_parent(layer, query, parents)  # type: ignore[arg-type]
        assert set(names) == one.keys() and ZEBRA in one
        assert [float(best[i, column]) for i in range(len(names))] == pytest.approx(
            [one[name][0] for name in names], abs=1e-6
        )
