"""Stored summaries: reuse while document and summarizer are unchanged, fall back on failure."""

import json
import logging
from pathlib import Path

import pytest

from corpus_builder import summary_store
from corpus_builder.summaries import ExtractiveSummarizer
from corpus_builder.summarizer import SummaryFailure
from corpus_builder.summary_store import document_digest, load_summaries, summarize_documents
from state.corpus import Component, Document


def doc(doc_id: str, text: str = "Some text.") -> Document:
    paragraph = Component(f"{doc_id}::p0", doc_id, "paragraph", 0, text=text)
    return Document(doc_id, doc_id.title(), components=(paragraph,))


class Flaky:
    """Summarizes by upper-casing; fails for the documents it is told to."""

    def __init__(self, summarizer_id: str = "flaky-1", failing: set[str] | None = None) -> None:
        self.summarizer_id = summarizer_id
        self.failing = failing or set()
        self.asked: list[str] = []

    def summarize(self, document: Document) -> str:
        self.asked.append(document.doc_id)
        if document.doc_id in self.failing or "*" in self.failing:
            raise SummaryFailure("the server is down")
        return document.components[0].text.upper()


def test_stored_summaries_are_reused_per_summarizer_and_content(tmp_path: Path) -> None:
    path = tmp_path / "summaries.json"
    docs = [doc("a"), doc("b")]
    first = Flaky()
    assert summarize_documents(docs, first, path).summaries == {
        "a": "SOME TEXT.",
        "b": "SOME TEXT.",
    }
    again = Flaky()
    run = summarize_documents([doc("a"), doc("b", "New text.")], again, path)
    assert again.asked == ["b"] and run.counts == {"written": 1, "reused": 1, "fallback": 0}
    other = Flaky("flaky-2")
    summarize_documents([doc("a")], other, path)
    assert other.asked == ["a"]
    stored = load_summaries(path).summaries
    assert set(stored) == {"a"}  # b left the corpus
    assert set(stored["a"]) == {"flaky-1", "flaky-2"}  # switching back costs nothing


def test_a_failure_falls_back_and_is_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "summaries.json"
    run = summarize_documents([doc("a"), doc("b")], Flaky(failing={"b"}), path)
    assert run.summaries["b"] == ExtractiveSummarizer().summarize(doc("b"))
    assert run.counts == {"written": 1, "reused": 0, "fallback": 1}
    assert set(load_summaries(path).summaries) == {"a"}


def test_after_failures_in_a_row_the_build_stops_asking(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summary_store, "MAX_FAILURES_IN_A_ROW", 2)
    flaky = Flaky(failing={"*"})
    caplog.set_level(logging.WARNING)
    run = summarize_documents([doc(f"d{n}") for n in range(5)], flaky, tmp_path / "s.json")
    assert flaky.asked == ["d0", "d1"] and run.counts["fallback"] == 5
    assert "2 summaries failed in a row" in caplog.text


def test_an_unreadable_file_only_costs_the_stored_summaries(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "summaries.json"
    path.write_text('{"format": "fif-summaries", "summaries": [')
    caplog.set_level(logging.WARNING)
    run = summarize_documents([doc("a")], Flaky(), path)
    assert run.counts["written"] == 1 and "unreadable" in caplog.text
    assert json.loads(path.read_text())["summaries"]["a"]["flaky-1"]["text"] == "SOME TEXT."


def test_the_digest_ignores_where_a_document_came_from() -> None:
    moved = Document("a", "A", components=doc("a").components, source="corpus.jsonl:9")
    assert document_digest(moved) == document_digest(doc("a"))
    assert document_digest(doc("a", "Other.")) != document_digest(doc("a"))


def test_a_killed_run_keeps_the_summaries_written_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summary_store, "SAVE_EVERY_S", -1.0)  # save after every summary

    class Killed(Flaky):
        def summarize(self, document: Document) -> str:
            if document.doc_id == "c":
                raise KeyboardInterrupt("kill -9")
            return super().summarize(document)

    path = tmp_path / "summaries.json"
    with pytest.raises(KeyboardInterrupt):
        summarize_documents([doc("a"), doc("b"), doc("c")], Killed(), path)
    resumed = Flaky()
    summarize_documents([doc("a"), doc("b"), doc("c")], resumed, path)
    assert resumed.asked == ["c"]
