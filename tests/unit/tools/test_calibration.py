from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from tools.calibration import ScoreCalibration, calibration_from_sims, estimate_calibration
from tools.corpus_index import CorpusIndex
from tools.layered_graph import LayeredGraph
from tools.manifest import Manifest


def test_a_clip_score_keeps_its_z_score_on_the_text_scale() -> None:
    calibration = ScoreCalibration(text_mean=0.1, text_std=0.2, image_mean=0.25, image_std=0.05)
    # 0.25 is the image mean -> the text mean; +2σ_i (0.35) -> +2σ_t (0.5); -1σ_i -> -1σ_t
    mapped = calibration.to_text_scale(np.array([0.25, 0.35, 0.2]))
    assert mapped.tolist() == pytest.approx([0.1, 0.5, -0.1])
    # past the cosine range the result is clipped: 0.25 + 5σ_i -> 0.1 + 5σ_t = 1.1 -> 1
    assert float(calibration.to_text_scale(np.array(0.5))) == 1.0


def test_moments_are_population_moments_and_skip_nan_pairs() -> None:
    text = np.array([[0.1, np.nan], [0.3, np.nan]])  # NaN: a probe against its own node
    image = np.array([[0.2, 0.5], [0.2, 0.5]])
    calibration = calibration_from_sims(text, image)
    assert calibration is not None
    assert (calibration.text_mean, calibration.text_std) == pytest.approx((0.2, 0.1))
    assert (calibration.image_mean, calibration.image_std) == pytest.approx((0.35, 0.15))
    assert (calibration.text_pairs, calibration.image_pairs) == (2, 4)


def test_no_calibration_without_image_sims_or_spread() -> None:
    text = np.array([[0.1, 0.3]])
    assert calibration_from_sims(text, np.zeros((1, 0))) is None
    assert calibration_from_sims(text, np.full((2, 2), 0.3)) is None
    assert calibration_from_sims(np.full((1, 1), np.nan), np.array([[0.2, 0.4]])) is None


class Vectors:
    """Stands in for ChromaLayers: stored vectors per layer."""

    def __init__(self, stored: dict[str, dict[str, list[float]]]) -> None:
        self.stored = stored

    def vectors(self, layer: str, ids: list[str]) -> dict[str, np.ndarray]:
        held = self.stored.get(layer, {})
        return {i: np.array(held[i], dtype=np.float32) for i in ids if i in held}


class Words:
    """Stands in for an embedder: a fixed vector per text."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.table[t] for t in texts], dtype=np.float32)


def test_estimate_on_hand_made_vectors() -> None:
    g = nx.DiGraph()
    for node, layer, kind, text in [
        ("d", 0, "document", "summary"),
        ("d::p0", 1, "paragraph", "alpha"),
        ("d::p0::s0", 2, "sentence", "beta"),
        ("d::i0", 1, "image", "a caption"),
        ("d::i0::o0", 2, "region", ""),
    ]:
        g.add_node(node, layer=layer, kind=kind, doc_id="d", text=text)
    layers = Vectors(
        {
            "component": {"d::p0": [1, 0], "d::i0": [0.6, 0.8]},
            "subcomponent": {"d::p0::s0": [0, 1], "d::i0::o0": [0.8, 0.6]},
            "image": {"d::i0": [1, 0], "d::i0::o0": [0, 1]},
        }
    )
    text = Words({"alpha": [1, 0], "beta": [0, 1]})
    image = Words({"alpha": [1, 0], "beta": [0.6, 0.8]})
    calibration = estimate_calibration(LayeredGraph(g), layers, text, image)  # type: ignore[arg-type]
    assert calibration is not None
    # probes: the two written text nodes (the caption belongs to an image); each is
    # compared with the four stored text vectors except its own:
    # alpha -> i0 0.6, o0 0.8, s0 0.0; beta -> i0 0.8, o0 0.6, p0 0.0
    pairs = [0.6, 0.8, 0.0, 0.8, 0.6, 0.0]
    assert calibration.text_mean == pytest.approx(7 / 15)
    assert calibration.text_std == pytest.approx(float(np.std(pairs)))
    # image: alpha -> i0 1.0, o0 0.0; beta -> i0 0.6, o0 0.8: mean 0.6, variance 0.56 / 4
    assert calibration.image_mean == pytest.approx(0.6)
    assert calibration.image_std == pytest.approx(np.sqrt(0.14))
    assert (calibration.text_pairs, calibration.image_pairs) == (6, 4)


def test_the_builder_stores_the_calibration_and_the_index_reuses_it(
    picture_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored = Manifest.load(picture_index).image_calibration
    assert stored is not None and stored.image_std > 0 and stored.text_pairs > 0
    import tools.corpus_index

    calls: list[int] = []
    real = tools.corpus_index.estimate_calibration

    def counted(*args: object) -> ScoreCalibration | None:
        calls.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tools.corpus_index, "estimate_calibration", counted)
    index = CorpusIndex.open(picture_index)
    scores = index.image_scores()
    assert scores is not None and scores.calibration == stored and not calls
    # an index built before calibrations were stored is calibrated once, to the same numbers
    older = CorpusIndex.open(picture_index)
    older.manifest = older.manifest.model_copy(update={"image_calibration": None})
    assert older.image_scores() is older.image_scores()
    assert len(calls) == 1
    rescored = older.image_scores()
    assert rescored is not None and rescored.calibration == stored


def test_an_index_without_image_vectors_has_no_image_scoring(caption_index: Path) -> None:
    assert Manifest.load(caption_index).image_calibration is None
    assert CorpusIndex.open(caption_index).image_scores() is None
