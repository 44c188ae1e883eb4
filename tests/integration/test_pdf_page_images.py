"""PDF regions and text-less pages embedded by a tiny random CLIP made locally (no weights)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from tiny_clip import save_tiny_clip

from corpus_builder.build import BuildOptions, build
from corpus_builder.page_images import PAGE_IMAGES
from corpus_builder.sentence_store import SENTENCES_FILE
from tools.calibration import ScoreCalibration
from tools.corpus_index import CorpusIndex
from tools.errors import IndexNotFoundError
from tools.index import ChromaLayers
from tools.manifest import GRAPH_FILE, SUMMARIES_FILE
from tools.search import dense_search

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Save a randomly initialised CLIP (nothing downloaded)."""
    transformers = pytest.importorskip("transformers")
    return save_tiny_clip(transformers, tmp_path_factory.mktemp("tiny_clip"))


@pytest.fixture(scope="module")
def report_pdfs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the generated report: a chart, a photo and a scanned page."""
    from figure_report import write_report

    folder = tmp_path_factory.mktemp("pdfs")
    write_report(folder / "report.pdf")
    for helper in folder.glob("*.png"):  # the pictures it embeds: not part of the corpus
        helper.unlink()
    return folder


def _options(clip: Path | None) -> BuildOptions:
    spec = f"clip:{clip}" if clip is not None else None
    return BuildOptions(image_embedder=spec, show_progress=False, ocr=False)


def _regions(index_dir: Path) -> dict[str, str]:
    """Return caption start -> component id of the index's image components."""
    index = CorpusIndex.open(index_dir)
    found = {}
    for node in index.graph.nodes_at(1):
        view = index.graph.node(node)
        if view.kind == "image":
            found[view.text[:8] or "page"] = node
    return found


def test_regions_and_the_textless_page_get_image_vectors_and_are_found(
    tiny_clip: Path, report_pdfs: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    manifest = build(report_pdfs, index_dir, _options(tiny_clip))
    assert manifest.images_indexed_via == "image-embedder"
    assert (manifest.options["page_images"], manifest.options["pages_rendered"]) == (3, 3)
    assert len(list((index_dir / PAGE_IMAGES).glob("*.png"))) == 3
    regions = _regions(index_dir)
    chart, photo = regions["Figure 1"], regions["Figure 2"]
    scan = next(cid for key, cid in regions.items() if key not in ("Figure 1", "Figure 2"))
    layers = ChromaLayers.open(index_dir, None, manifest.name)
    stored = sorted(layers.collection("image").get(include=[])["ids"])
    assert stored == sorted([chart, photo, scan])
    vectors = layers.vectors("image", stored)
    assert np.allclose([np.linalg.norm(v) for v in vectors.values()], 1.0, atol=1e-5)
    assert manifest.image_calibration is not None

    index = CorpusIndex.open(index_dir)
    hits = index.layers.query("image", index.embed_query("anvil chart", space="image"), 10)
    assert sorted(h.node_id for h in hits) == stored  # image search returns the regions
    # lift the random CLIP's scores above any text match: a region then leads by its pixels
    lifted = ScoreCalibration(text_mean=0.99, text_std=1e-6, image_mean=0.0, image_std=1.0)
    index.manifest = index.manifest.model_copy(update={"image_calibration": lifted})
    top = dense_search(index, "Who discovered radium?", "component", k=3)[0]
    assert top.node_id in stored and top.score == pytest.approx(0.99, abs=1e-3)
    hop = index.similarities("component", index.embed_query("Who discovered radium?"), stored)
    assert all(score == pytest.approx(0.99, abs=1e-3) for score in hop.values())  # FiF's hops

    again = build(report_pdfs, index_dir, _options(tiny_clip))
    assert (again.options["page_images"], again.options["pages_rendered"]) == (3, 0)
    assert again.embedding["image_unchanged"] == 3


def test_without_an_image_embedder_nothing_is_rendered_and_the_text_index_is_the_same(
    tiny_clip: Path, report_pdfs: Path, tmp_path: Path
) -> None:
    text_only = build(report_pdfs, tmp_path / "text", _options(None))
    with_clip = build(report_pdfs, tmp_path / "clip", _options(tiny_clip))
    assert not (tmp_path / "text" / PAGE_IMAGES).exists()
    assert "page_images" not in text_only.options and text_only.images_indexed_via == "none"
    for name in (GRAPH_FILE, SUMMARIES_FILE, SENTENCES_FILE):
        assert _digest(tmp_path / "text" / name) == _digest(tmp_path / "clip" / name), name
    assert text_only.counts == with_clip.counts
    layers = ChromaLayers.open(tmp_path / "text", None, text_only.name)
    with pytest.raises(IndexNotFoundError):  # no image collection at all
        layers.count("image")


def _digest(path: Path) -> str:
    return hashlib.sha1(path.read_bytes()).hexdigest()
