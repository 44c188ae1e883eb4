"""The image path with a tiny random CLIP model made locally: images and regions get vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tiny_clip import save_tiny_clip

from corpus_builder.build import BuildOptions, build
from tools.calibration import ScoreCalibration
from tools.corpus_index import CorpusIndex
from tools.index import ChromaLayers
from tools.search import dense_search

pytestmark = pytest.mark.integration

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini_bundle"
IMAGE_NODES = ["warsaw::i0", *(f"warsaw::i0::o{n}" for n in range(4))]


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Save a randomly initialised CLIP with a character-level tokenizer (nothing downloaded)."""
    transformers = pytest.importorskip("transformers")
    return save_tiny_clip(transformers, tmp_path_factory.mktemp("tiny_clip"))


def test_images_and_regions_are_indexed_by_the_image_embedder(
    tiny_clip: Path, tmp_path: Path
) -> None:
    options = BuildOptions(image_embedder=f"clip:{tiny_clip}", show_progress=False)
    manifest = build(MINI, tmp_path / "index", options)
    assert manifest.complete and manifest.images_indexed_via == "image-embedder"
    assert manifest.image_embedder is not None
    assert (manifest.image_embedder.model_id, manifest.image_embedder.dim) == (
        f"clip:{tiny_clip.name}",
        16,
    )
    layers = ChromaLayers.open(tmp_path / "index", None, manifest.name)
    collection = layers.collection("image")
    assert sorted(collection.get(include=[])["ids"]) == IMAGE_NODES
    vectors = layers.vectors("image", IMAGE_NODES)
    assert all(v.shape == (16,) for v in vectors.values())
    assert np.allclose([np.linalg.norm(v) for v in vectors.values()], 1.0, atol=1e-5)
    assert not np.allclose(vectors["warsaw::i0::o0"], vectors["warsaw::i0::o3"])  # yellow vs red

    index = CorpusIndex.open(tmp_path / "index")
    assert index.image_embedder is not None
    hits = index.layers.query("image", index.embed_query("flag of Warsaw", space="image"), 10)
    assert sorted(h.node_id for h in hits) == IMAGE_NODES
    assert {h.component_id for h in hits} == {"warsaw::i0"}

    again = build(MINI, tmp_path / "index", options)
    assert again.embedding["image_unchanged"] == 5 and "image_written" not in again.embedding
    assert again.image_calibration == manifest.image_calibration  # same corpus, same numbers


@pytest.fixture(scope="module")
def clip_index(tiny_clip: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini bundle indexed with the packaged text model and the tiny CLIP (read only)."""
    index_dir = tmp_path_factory.mktemp("clip_index")
    options = BuildOptions(image_embedder=f"clip:{tiny_clip}", show_progress=False)
    build(MINI, index_dir, options)
    return index_dir


def test_search_scores_images_by_caption_or_calibrated_image_vector(clip_index: Path) -> None:
    index = CorpusIndex.open(clip_index)
    calibration = index.manifest.image_calibration
    assert calibration is not None and calibration.image_std > 0 and calibration.text_std > 0
    question = "yellow and red stripes"
    components = len(list(index.graph.nodes_at(1)))
    found = {n.node_id: n for n in dense_search(index, question, "component", k=components)}
    caption = index.layers.vectors("component", ["warsaw::i0"])["warsaw::i0"]
    pixels = index.layers.vectors("image", ["warsaw::i0"])["warsaw::i0"]
    text_score = float(caption @ index.embed_query(question))
    clip = float(pixels @ index.embed_query(question, space="image"))
    image_score = float(calibration.to_text_scale(np.array(clip)))
    assert found["warsaw::i0"].score == pytest.approx(max(text_score, image_score), abs=1e-4)


def test_a_picture_can_win_by_its_image_vector(clip_index: Path) -> None:
    index = CorpusIndex.open(clip_index)
    assert index.manifest.image_calibration is not None
    # a random CLIP's scores mean nothing, so lift them: with a calibration that puts every
    # image match above any text match, the picture must lead through the image layer
    # (its own vector, or a region's) even for a question its caption does not match
    lifted = ScoreCalibration(text_mean=0.99, text_std=1e-6, image_mean=0.0, image_std=1.0)
    index.manifest = index.manifest.model_copy(update={"image_calibration": lifted})
    question = "Who discovered radium in 1898?"
    for granularity, evidence in (("component", ["warsaw::i0"]), ("subcomponent", IMAGE_NODES)):
        top = dense_search(index, question, granularity, k=3)[0]  # type: ignore[arg-type]
        assert (top.node_id, top.kind) == ("warsaw::i0", "image")
        assert top.evidence in evidence and top.score == pytest.approx(0.99, abs=1e-3)
