"""The mini bundle built with the packaged model into embedded Chroma and a Chroma server."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from corpus_builder.build import BuildOptions, build
from tools.corpus_index import CorpusIndex
from tools.embedders import DEFAULT_TEXT_EMBEDDER, load_embedder
from tools.index import ChromaLayers
from tools.index_versions import live_dir
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest
from tools.search import dense_search
from tools.vector_mirror import chroma_vectors, read_mirror

pytestmark = pytest.mark.integration

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini_bundle"
QUESTIONS = {
    q["qid"]: q
    for q in map(json.loads, (MINI / "questions.jsonl").read_text(encoding="utf-8").splitlines())
}
TOP_3 = [("mb1", "component"), ("mb2", "component"), ("mb2", "subcomponent"), ("mb4", "component")]
LAYER_OF_INDEX = {"document": 0, "component": 1, "subcomponent": 2}


def gold_rank(index: CorpusIndex, qid: str, granularity: str) -> int:
    """Return the 1-based rank of the best-ranked gold component (99 when absent)."""
    question = QUESTIONS[qid]
    ranked = [n.node_id for n in dense_search(index, question["question"], granularity, k=10)]  # type: ignore[arg-type]
    return min(
        (ranked.index(g) + 1 for g in question["gold_components"] if g in ranked), default=99
    )


def assert_layers_match_graph(index_dir: Path, chroma_url: str | None, name: str) -> None:
    graph = LayeredGraph.load(index_dir / GRAPH_FILE)
    layers = ChromaLayers.open(index_dir, chroma_url, name)
    for layer, level in LAYER_OF_INDEX.items():
        ids = layers.collection(layer).get(include=[])["ids"]  # type: ignore[arg-type]
        assert len(ids) == len(set(ids)) == layers.count(layer)  # type: ignore[arg-type]
        assert set(ids) == set(graph.nodes_at(level)), layer


@pytest.fixture(scope="module")
def embedded_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index_dir = tmp_path_factory.mktemp("embedded") / "mini"
    build(MINI, index_dir, BuildOptions(show_progress=False))
    return index_dir


def test_the_packaged_model_builds_the_mini_bundle(embedded_index: Path) -> None:
    index = CorpusIndex.open(embedded_index)
    manifest = index.manifest
    assert manifest.complete and manifest.skipped == []
    assert (manifest.text_embedder.spec, manifest.text_embedder.dim) == (DEFAULT_TEXT_EMBEDDER, 384)
    assert manifest.images_indexed_via == "caption-text"
    assert manifest.options["sentence_vectors"] == "standalone"
    assert_layers_match_graph(embedded_index, None, manifest.name)


def test_the_int8_default_stays_close_to_fp32() -> None:
    # One weight scale per matrix drifts to cosine ~0.94 on real text; per channel, ~0.98.
    paragraphs = [
        component["text"]
        for document in map(json.loads, (MINI / "corpus.jsonl").read_text().splitlines())
        for component in document["components"]
        if component.get("text")
    ]
    fast = load_embedder(DEFAULT_TEXT_EMBEDDER).embed(paragraphs)
    exact = load_embedder("st:all-MiniLM-L6-v2#fp32@128").embed(paragraphs)
    cosines = (fast * exact).sum(axis=1)
    assert len(paragraphs) >= 10
    assert cosines.mean() > 0.97 and cosines.min() > 0.93, cosines.round(3)


@pytest.mark.parametrize(("qid", "granularity"), TOP_3)
def test_gold_components_rank_in_the_top_3(
    embedded_index: Path, qid: str, granularity: str
) -> None:
    assert gold_rank(CorpusIndex.open(embedded_index), qid, granularity) <= 3


def test_contextual_sentences_come_from_their_paragraph_pass(tmp_path: Path) -> None:
    """With --contextual-sentences a sentence is pooled from its paragraph's pass."""
    import numpy as np

    from corpus_builder.texts import with_title
    from tools.embedders import CONTEXT_TOKENS

    build(MINI, tmp_path / "mini", BuildOptions(show_progress=False, contextual_sentences=True))
    index = CorpusIndex.open(tmp_path / "mini")
    assert index.manifest.options["sentence_vectors"] == "contextual"
    graph = index.graph
    paragraph = "marie_curie::p0"
    title = graph.title(graph.node(paragraph).doc_id)
    sentences = graph.children(paragraph)
    stored = index.layers.vectors("subcomponent", sentences)
    alone = index.text_embedder.embed([with_title(title, graph.node(s).text) for s in sentences])
    for sentence, standalone in zip(sentences, alone, strict=True):
        similarity = float(np.dot(stored[sentence], standalone))
        assert 0.6 < similarity < 0.995, sentence  # akin to, but not, the standalone vector
    # the paragraph's vector is its usual embedding with the context window
    spec = index.manifest.text_embedder.spec.rpartition("@")[0] + f"@{CONTEXT_TOKENS}"
    usual = load_embedder(spec).embed([with_title(title, graph.node(paragraph).text)])[0]
    whole = index.layers.vectors("component", [paragraph])[paragraph]
    assert np.abs(whole - usual).max() < 1e-5  # the default encoder's vectors ignore the batch


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_heartbeat(url: str, server: subprocess.Popen, log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"chroma run exited with {server.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    pytest.fail(f"no heartbeat from {url} after {seconds:.0f} s:\n{log.read_text()[-2000:]}")


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start `chroma run` on a free port, wait for its heartbeat, stop it at teardown."""
    executable = Path(sys.executable).parent / "chroma"
    if not executable.is_file():
        pytest.skip(f"no chroma executable next to {sys.executable}")
    folder = tmp_path_factory.mktemp("chroma_server")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [str(executable), "run", "--path", str(folder / "data"), "--host", "127.0.0.1",
             "--port", str(port)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )  # fmt: skip
    try:
        wait_for_heartbeat(url, server, log, seconds=90)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_build_and_search_against_a_chroma_server(chroma_server: str, tmp_path: Path) -> None:
    index_dir = tmp_path / "served"
    options = BuildOptions(chroma_url=chroma_server, show_progress=False)
    manifest = build(MINI, index_dir, options)
    assert manifest.complete and manifest.chroma_url == chroma_server
    assert not (index_dir / "chroma").exists()  # nothing was stored locally but the copy
    assert_layers_match_graph(index_dir, chroma_server, manifest.prefix)
    served = ChromaLayers.open(index_dir, chroma_server, manifest.prefix)
    copied = read_mirror(index_dir, "subcomponent", manifest.vectors_token)
    ids, vectors = chroma_vectors(served, "subcomponent")
    assert copied is not None and copied[0] == ids and np.array_equal(copied[1], vectors)
    index = CorpusIndex.open(index_dir)  # the manifest names the server
    for qid, granularity in TOP_3:
        assert gold_rank(index, qid, granularity) <= 3, qid
    again = build(MINI, index_dir, options)
    assert again.embedding.get("texts_embedded", 0) == 0


NEW_PAGE = {
    "doc_id": "zorblatt_tower",
    "title": "Zorblatt Tower",
    "components": [
        {
            "component_id": "zorblatt_tower::p0",
            "type": "paragraph",
            "text": "Zorblatt Tower is a radio mast near Warsaw, finished in 1974.",
        }
    ],
}


def test_a_rebuild_on_a_chroma_server_never_changes_what_readers_read(
    chroma_server: str, tmp_path: Path
) -> None:
    """Each version writes its own collections: reads go on during a build, whole, then move."""
    corpus = Path(shutil.copytree(MINI, tmp_path / "corpus"))
    index_dir = tmp_path / "rebuilt"
    options = BuildOptions(chroma_url=chroma_server, show_progress=False)
    first = build(corpus, index_dir, options)
    reader = CorpusIndex.open(index_dir)
    question = QUESTIONS["mb1"]["question"]
    expected = [n.node_id for n in dense_search(reader, question, "component", k=5)]
    pages = corpus / "corpus.jsonl"
    pages.write_text(pages.read_text(encoding="utf-8") + json.dumps(NEW_PAGE) + "\n")
    update = threading.Thread(target=build, args=(corpus, index_dir, options))
    update.start()
    reads = 0
    while update.is_alive() or reads == 0:
        assert [n.node_id for n in dense_search(reader, question, "component", k=5)] == expected
        reads += 1
    update.join()
    second = Manifest.load(live_dir(index_dir))
    assert second.complete and second.prefix != first.prefix
    assert second.embedding.get("texts_embedded", 0) <= 3  # the new page only: the rest was copied
    fresh = CorpusIndex.open(index_dir)
    found = dense_search(fresh, "Zorblatt radio mast near Warsaw", "component", k=1)
    assert found[0].node_id == "zorblatt_tower::p0"
    build(corpus, index_dir, options)  # a third version: the first one's collections go
    names = {
        c.name for c in ChromaLayers.open(index_dir, chroma_server, "x").client.list_collections()
    }
    assert not any(n.startswith(f"{first.prefix}_") for n in names)
    assert any(n.startswith(f"{second.prefix}_") for n in names)
