"""`--ray` on a local 2-CPU Ray: the same index and the same eval results as one process.

One local Ray serves the module (2 CPUs, no dashboard). The build compares a PDF report
(text, a chart, a photo and a scanned page: parsed and OCRed on a worker; contextual and
standalone passes embedded there with the packaged int8 model, whose vectors depend on
their batch) built in-process and on Ray, bit for bit. The eval runs dense and FiF over
the mini bundle's index both ways.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corpus_builder.build import BuildOptions, build
from evals.runner import run
from tools.index import INDEX_LAYERS, ChromaLayers
from tools.manifest import Manifest
from tools.ray_cluster import RayTarget, ray_session
from tools.vector_mirror import read_mirror

pytestmark = pytest.mark.integration

MINI_BUNDLE = Path(__file__).resolve().parents[1] / "fixtures" / "mini_bundle"
SAME_FILES = ("graph.json", "sentences.json", "summaries.json", "component_terms.npz")
SYSTEMS = ("dense", "fif")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """Start one local Ray for the module (never a cluster RAY_ADDRESS names) and stop it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("RAY_ADDRESS", raising=False)
        with ray_session(RayTarget(num_cpus=2)):
            yield


def layer_contents(index_dir: Path, manifest: Manifest) -> dict[str, dict[str, Any]]:
    """Return every layer's stored ids, metadata and vectors (as bytes)."""
    layers = ChromaLayers.open(index_dir, None, manifest.name)
    contents: dict[str, dict[str, Any]] = {}
    for layer in INDEX_LAYERS:
        if not layers.has(layer):
            continue
        got = layers.collection(layer).get(include=["embeddings", "metadatas"])
        contents[layer] = {
            node_id: (meta, np.asarray(vector, dtype=np.float32).tobytes())
            for node_id, meta, vector in zip(
                got["ids"], got["metadatas"], got["embeddings"], strict=True
            )
        }
    return contents


def assert_same_index(single: Path, spread: Path) -> None:
    """Assert two index folders hold the same layers, graph, sparse indices and mirror."""
    first, second = Manifest.load(single), Manifest.load(spread)
    assert first.counts == second.counts and first.embedding == second.embedding
    assert first.options == second.options
    assert layer_contents(single, first) == layer_contents(spread, second)
    for name in SAME_FILES:
        assert (single / name).read_bytes() == (spread / name).read_bytes(), name
    for path in sorted((single / "sparse").rglob("*")):
        if path.is_file():
            assert path.read_bytes() == (spread / path.relative_to(single)).read_bytes(), path
    for layer in INDEX_LAYERS:
        mine = read_mirror(single, layer, first.vectors_token)
        theirs = read_mirror(spread, layer, second.vectors_token)
        assert (mine is None) == (theirs is None), layer
        if mine is not None and theirs is not None:
            assert mine[0] == theirs[0] and np.array_equal(mine[1], theirs[1]), layer


def test_a_ray_build_writes_the_index_one_process_writes(
    local_ray: None, tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    corpus = tmp_path / "pdfs"
    corpus.mkdir()
    report_writer(corpus / "anvil_report.pdf", scan_text="ANVIL OUTPUT")
    options = {"show_progress": False}
    single = build(corpus, tmp_path / "single" / "index", BuildOptions(**options))
    spread = build(corpus, tmp_path / "ray" / "index", BuildOptions(**options, ray=RayTarget()))
    assert single.options["sentence_vectors"] == "contextual"  # both kinds of pass were run
    assert single.skipped == spread.skipped == []
    assert_same_index(tmp_path / "single" / "index", tmp_path / "ray" / "index")


def rankings(out_dir: Path) -> dict[tuple[str, str], tuple[list[str], Any]]:
    """Return each pair's ranking and error from a run's results.jsonl."""
    lines = (out_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return {(r["qid"], r["system"]): (r["ranking"], r.get("error")) for r in records}


def test_a_ray_eval_ranks_as_one_process_does(
    local_ray: None, mini_index: Path, tmp_path: Path
) -> None:
    common = {"progress": False}
    single = run(SYSTEMS, MINI_BUNDLE, mini_index, tmp_path / "single", **common)
    spread = run(SYSTEMS, MINI_BUNDLE, mini_index, tmp_path / "ray", **common, ray=RayTarget())
    assert spread.computed == single.computed == 2 * len(single.examples)
    assert spread.errors == single.errors == 0
    expected = rankings(tmp_path / "single")
    assert rankings(tmp_path / "ray") == expected
    assert all(ranking for ranking, _ in expected.values())
