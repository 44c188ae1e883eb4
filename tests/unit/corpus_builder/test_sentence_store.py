"""Stored sentence splits: reused while the paragraph and the splitter are unchanged."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import corpus_builder.sentence_store as sentence_store
from corpus_builder.ingest import read_corpus
from corpus_builder.sentence_store import SentenceStore, split_with_store, splitter_id
from corpus_builder.splitters import FixedCrops, split_components
from state.corpus import Document, IngestReport

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


@pytest.fixture
def documents() -> list[Document]:
    return read_corpus(MINI, IngestReport())[1]


def paragraphs(documents: list[Document]) -> int:
    return sum(c.kind == "paragraph" for d in documents for c in d.components)


def test_a_rebuild_reuses_every_split_and_splits_the_same(
    documents: list[Document], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sentences.json"
    expected = split_components(documents, FixedCrops())
    assert split_with_store(documents, FixedCrops(), path) == expected
    assert path.is_file()

    def fail(text: str) -> tuple[str, ...]:
        raise AssertionError(f"split again: {text[:40]}")

    monkeypatch.setattr(sentence_store, "split_sentences", fail)
    store = SentenceStore.load(path)
    assert split_components(documents, FixedCrops(), store.split) == expected
    assert store.reused == paragraphs(documents) > 0


def test_the_store_keeps_only_the_paragraphs_still_there(
    documents: list[Document], tmp_path: Path
) -> None:
    path = tmp_path / "sentences.json"
    split_with_store(documents, FixedCrops(), path)
    everything = len(json.loads(path.read_text(encoding="utf-8"))["splits"])
    split_with_store(documents[:1], FixedCrops(), path)
    kept = json.loads(path.read_text(encoding="utf-8"))["splits"]
    assert 0 < len(kept) < everything


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '["a list"]',
        '{"splitter": "SPLITTER", "splits": ["not a mapping"]}',
        '{"splitter": "SPLITTER", "splits": {"k": [1, 2]}}',
        '{"splitter": "pysbd-0.0/rules-0", "splits": {}}',
    ],
)
def test_a_bad_or_older_store_means_splitting_again(
    documents: list[Document], tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "sentences.json"
    path.write_text(content.replace("SPLITTER", splitter_id()), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        store = SentenceStore.load(path)
    assert split_components(documents, FixedCrops(), store.split) == split_components(
        documents, FixedCrops()
    )
    assert store.reused == 0
    unreadable = content in ("not json", '["a list"]') or "not a mapping" in content
    assert ("splitting every paragraph again" in caplog.text) == unreadable
