"""SIGKILL `fif build` while it writes vectors, resume it, and find every node exactly once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus_builder.build import BuildOptions, build
from tools.corpus_index import CorpusIndex
from tools.errors import IndexNotFoundError
from tools.index import ChromaLayers
from tools.index_versions import versions
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("FIF_DATA_DIR", REPO / "data"))
"""The folder holding the dev bundles (not in the repository): `make test DATA=...` sets it."""
HOTPOT = DATA / "hotpotqa-train100" / "corpus.jsonl"
DOCUMENTS = 250
BUILD = (
    "import sys; from pathlib import Path; "
    "from corpus_builder.build import BuildOptions, build; "
    "build(Path(sys.argv[1]), Path(sys.argv[2]), BuildOptions(show_progress=False))"
)


def stored_vectors(index_dir: Path) -> int:
    """Count vectors the killed build has written, read-only from Chroma's SQLite file.

    A second chromadb client on an embedded store that another process is writing is not
    supported by Chroma; a read-only SQLite connection is safe.
    """
    staging = versions(index_dir)  # a build writes a new version folder, published at its end
    database = staging[-1] / "chroma" / "chroma.sqlite3" if staging else Path("absent")
    if not database.is_file():
        return 0
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1) as connection:
            return int(connection.execute("SELECT count(*) FROM embeddings").fetchone()[0])
    except sqlite3.Error:
        return 0  # tables not created yet, or the writer holds a lock


def test_a_killed_build_resumes_with_every_node_once(tmp_path: Path) -> None:
    if not HOTPOT.is_file():
        pytest.skip(f"{HOTPOT} is absent: set FIF_DATA_DIR to the folder of the dev bundles")
    corpus = tmp_path / "hotpot"
    corpus.mkdir()
    with HOTPOT.open(encoding="utf-8") as source:
        lines = [next(source) for _ in range(DOCUMENTS)]
    (corpus / "corpus.jsonl").write_text("".join(lines), encoding="utf-8")
    index_dir = tmp_path / "index"
    log = tmp_path / "build.log"
    with log.open("wb") as sink:
        killed = subprocess.Popen(
            [sys.executable, "-c", BUILD, str(corpus), str(index_dir)],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 240
    while killed.poll() is None and stored_vectors(index_dir) == 0:
        assert time.monotonic() < deadline, f"no vectors after 240 s:\n{log.read_text()[-2000:]}"
        time.sleep(0.1)
    if killed.poll() is not None:
        pytest.fail(f"the build ended ({killed.returncode}) before it could be killed")
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert killed.returncode == -signal.SIGKILL
    assert not Manifest.load(versions(index_dir)[-1]).complete
    with pytest.raises(IndexNotFoundError, match="no FiF index here"):
        CorpusIndex.open(index_dir)  # nothing was published

    resumed = build(corpus, index_dir, BuildOptions(show_progress=False))
    assert resumed.complete and resumed.counts["document"] == DOCUMENTS
    kept = sum(v for k, v in resumed.embedding.items() if k.endswith("_unchanged"))
    assert kept > 0  # vectors written before the kill were not embedded again
    graph = LayeredGraph.load(index_dir / GRAPH_FILE)
    layers = ChromaLayers.open(index_dir, None, resumed.name)
    for layer, level in (("document", 0), ("component", 1), ("subcomponent", 2)):
        ids = layers.collection(layer).get(include=[])["ids"]
        assert len(ids) == len(set(ids)) == layers.count(layer)
        assert set(ids) == set(graph.nodes_at(level)), layer

    third = build(corpus, index_dir, BuildOptions(show_progress=False))
    assert third.complete and third.embedding.get("texts_embedded", 0) == 0
    assert CorpusIndex.open(index_dir).manifest.complete
