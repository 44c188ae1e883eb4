"""`fif build --update` from corpus A to corpus B answers exactly as a full build of B.

B differs from A by one page added (whose title older pages mention, so mention links
appear on pages that did not change), one page changed and one removed (a page others
link to). Built with the packaged model in fp32: the default int8 model scales a pass's
activations by its whole batch, so its vector of a text moves with the texts batched
beside it and no two builds that batch differently agree to the last digit (not even two
full builds of corpora in another order); fp32 vectors do not depend on the batch.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corpus_builder.build import BuildOptions, build
from evals.datasets.questions import load_questions
from graph_agent.api import ask
from state.fif_context import FiFContext
from tools.atomic_file import read_npz
from tools.corpus_index import CorpusIndex
from tools.index import INDEX_LAYERS
from tools.index_versions import live_dir
from tools.search import dense_search
from tools.vector_mirror import read_mirror

pytestmark = pytest.mark.integration

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "ottqa-sample"
DOCUMENTS = 24
FP32 = "st:all-MiniLM-L6-v2#fp32"
QUERIES = 3


def records() -> list[dict[str, Any]]:
    with (SAMPLE / "corpus.jsonl").open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def text_of(record: dict[str, Any]) -> str:
    return " ".join(str(c.get("text", "")) for c in record["components"])


def corpora(tmp_path: Path) -> tuple[Path, Path, str]:
    """Write corpus A and corpus B; return them and the added page's id."""
    everything = records()
    before = everything[:DOCUMENTS]
    added = next(
        r
        for r in everything[DOCUMENTS:]
        if len(r["title"]) > 6 and any(r["title"] in text_of(old) for old in before[1:-1])
    )
    linked = {target for r in before for c in r["components"] for target in c.get("links", [])}
    removed = next(r for r in before[2:] if r["doc_id"] in linked)
    changed = dict(before[1])
    components = [dict(c) for c in changed["components"]]
    first = next(c for c in components if c.get("text"))
    first["text"] = "A rewritten opening sentence about a stadium. " + first["text"]
    changed["components"] = components
    after = [changed if r is before[1] else r for r in before if r is not removed] + [added]
    paths = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path, chosen in zip(paths, (before, after), strict=True):
        path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    return paths[0], paths[1], added["doc_id"]


def same_files(updated: Path, full: Path) -> None:
    """Check every build product but Chroma's store, the vectors and the manifest."""
    compared = 0
    for path in sorted(full.rglob("*")):
        relative = path.relative_to(full)
        if path.is_dir() or relative.parts[0] in ("chroma", "vectors", "manifest.json"):
            continue
        twin = updated / relative
        assert twin.is_file(), relative
        if path.suffix == ".json":
            assert json.loads(twin.read_text()) == json.loads(path.read_text()), relative
        elif path.suffix == ".npz":
            ours, theirs = read_npz(twin, lambda _: True, ""), read_npz(path, lambda _: True, "")
            assert ours is not None and theirs is not None, relative
            assert ours[0] == theirs[0] and ours[1].keys() == theirs[1].keys(), relative
            for key in ours[1]:
                assert np.array_equal(ours[1][key], theirs[1][key]), (relative, key)
        else:
            assert twin.read_bytes() == path.read_bytes(), relative
        compared += 1
    assert compared >= 5


def same_layers(updated: CorpusIndex, full: CorpusIndex) -> None:
    """Check every layer holds the same nodes, metadata and vectors (the copy's too)."""
    for layer in INDEX_LAYERS:
        assert updated.layers.has(layer) == full.layers.has(layer), layer
        if not full.layers.has(layer):
            continue
        ours, theirs = updated.layers.stored_metadata(layer), full.layers.stored_metadata(layer)
        assert ours == theirs, layer
        ids = sorted(theirs)
        mine, other = updated.layers.vectors(layer, ids), full.layers.vectors(layer, ids)
        assert np.allclose(
            np.stack([mine[i] for i in ids]), np.stack([other[i] for i in ids]), atol=1e-5
        ), layer
        assert read_mirror(live_dir(updated.index_dir), layer, updated.manifest.vectors_token)
        copied = updated.cache.matrix(layer, ids)  # the patched numpy copy, row for row
        assert np.array_equal(copied[1], np.stack([mine[i] for i in copied[0]])), layer


def test_an_update_answers_as_a_full_build_of_the_new_corpus(tmp_path: Path) -> None:
    corpus_a, corpus_b, added = corpora(tmp_path)
    options = BuildOptions(show_progress=False, link_mentions="on", text_embedder=FP32)
    build(corpus_a, tmp_path / "updated", options)
    update = replace(options, update=True)
    manifest = build(corpus_b, tmp_path / "updated", update)
    assert manifest.documents == {
        "added": 1,
        "changed": 1,
        "removed": 1,
        "unchanged": DOCUMENTS - 2,
    }
    assert 0 < manifest.embedding["texts_embedded"] < 60
    build(corpus_b, tmp_path / "full", options)

    same_files(live_dir(tmp_path / "updated"), live_dir(tmp_path / "full"))
    updated, full = CorpusIndex.open(tmp_path / "updated"), CorpusIndex.open(tmp_path / "full")
    mentions = [
        u for u, v, d in updated.graph.g.in_edges(added, data=True) if d["kind"] == "links_to"
    ]
    assert mentions, "no page links to the added one"
    same_layers(updated, full)
    questions = [q.question for q in load_questions(SAMPLE / "questions.jsonl").examples]
    for question in [*questions[:QUERIES], "rewritten opening sentence about a stadium"]:
        for granularity in ("component", "subcomponent"):
            ours = [h.node_id for h in dense_search(updated, question, granularity, 10)]
            theirs = [h.node_id for h in dense_search(full, question, granularity, 10)]
            assert ours == theirs, (question, granularity)
        runs = [
            ask(question, FiFContext(index_dir=str(tmp_path / name), top_k=10))
            for name in ("updated", "full")
        ]
        assert [r["component_id"] for r in runs[0].ranking] == [
            r["component_id"] for r in runs[1].ranking
        ], question
