"""Per-document hashes: what an update counts as added, changed, removed and unchanged."""

from __future__ import annotations

from pathlib import Path

from corpus_builder.document_hashes import (
    changes,
    document_changes,
    document_hash,
    load_hashes,
    save_hashes,
)
from state.corpus import Component, Document


def page(doc_id: str, text: str, source: str = "corpus.jsonl:1") -> Document:
    component = Component(f"{doc_id}::p0", doc_id, "paragraph", 0, text=text)
    return Document(doc_id=doc_id, title=doc_id, components=(component,), source=source)


def test_a_page_that_moved_in_its_file_is_the_same_page() -> None:
    moved = page("a", "Same text.", source="corpus.jsonl:9")
    assert document_hash(page("a", "Same text.")) == document_hash(moved)
    assert document_hash(page("a", "Same text.")) != document_hash(page("a", "New text."))


def test_changes_are_counted_by_document() -> None:
    before = {"a": "1", "b": "2", "c": "3"}
    after = {"a": "1", "b": "changed", "d": "4"}
    assert changes(before, after) == {"added": 1, "changed": 1, "removed": 1, "unchanged": 1}
    assert changes(None, after) == {"added": 3, "changed": 0, "removed": 0, "unchanged": 0}


def test_hashes_are_stored_only_when_saved(tmp_path: Path) -> None:
    path = tmp_path / "documents.json"
    hashes, counted = document_changes([page("a", "x"), page("b", "y")], path)
    assert counted["added"] == 2 and load_hashes(path) is None  # not saved yet
    save_hashes(path, hashes)
    assert load_hashes(path) == hashes
    path.write_text("{not json")
    assert load_hashes(path) is None
