"""Summaries that outlive a build: reuse stored ones, write the missing, fall back on failure.

An LLM summary costs a call, so every summary is kept in `summaries.json` next to the
index, keyed by document, summarizer id and a digest of the document's content. A rebuild
reuses a stored summary while all three match, so an unchanged corpus makes no LLM calls;
the document layer embeds the summary text, so a changed summary is re-embedded and an
unchanged one is not. A failed summary (SummaryFailure) is replaced by the extractive one,
logged and counted, and not stored, so the next build tries again. After
MAX_FAILURES_IN_A_ROW failures in a row the build stops asking (a server that is down
would otherwise cost every document its timeouts and retries).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from corpus_builder.summaries import ExtractiveSummarizer
from corpus_builder.summarizer import Summarizer, SummaryFailure
from state.corpus import Document
from tools.atomic_file import write_text_atomically

logger = logging.getLogger(__name__)

SAVE_EVERY_S = 10.0
"""A slow summarizer's progress is saved this often, so a killed build keeps most of it."""
MAX_FAILURES_IN_A_ROW = 5


class StoredSummary(BaseModel):
    """One summary and the digest of the document content it was written from."""

    digest: str
    text: str


class SummaryFile(BaseModel):
    """The stored summaries of an index: doc id -> summarizer id -> summary."""

    format: Literal["fif-summaries"] = "fif-summaries"
    version: int = 1
    summaries: dict[str, dict[str, StoredSummary]] = Field(default_factory=dict)


@dataclass
class SummaryRun:
    """The summary of every document, and how each was obtained."""

    summaries: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(
        default_factory=lambda: {"written": 0, "reused": 0, "fallback": 0}
    )


def document_digest(document: Document) -> str:
    """Hash what a summary is written from: title, url, and each component's kind and text."""
    parts: list[object] = [document.title, document.url]
    for component in document.components:
        table = component.table
        cells = [list(table.header), [list(row) for row in table.rows]] if table else None
        parts.append([component.kind, component.text, cells])
    return hashlib.sha1(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def summarize_documents(
    documents: Sequence[Document], summarizer: Summarizer, path: Path
) -> SummaryRun:
    """Return every document's summary, reusing those stored at path and storing new ones."""
    store = load_summaries(path)
    digests = {document.doc_id: document_digest(document) for document in documents}
    run, writer = SummaryRun(), _Writer(summarizer)
    saved_at = time.monotonic()
    for document in documents:
        stored = store.summaries.get(document.doc_id, {}).get(summarizer.summarizer_id)
        if stored is not None and stored.digest == digests[document.doc_id]:
            run.summaries[document.doc_id] = stored.text
            run.counts["reused"] += 1
            continue
        text, written = writer.summarize(document)
        run.summaries[document.doc_id] = text
        run.counts["written" if written else "fallback"] += 1
        if written:
            store.summaries.setdefault(document.doc_id, {})[summarizer.summarizer_id] = (
                StoredSummary(digest=digests[document.doc_id], text=text)
            )
            if time.monotonic() - saved_at > SAVE_EVERY_S:
                save_summaries(path, store)
                saved_at = time.monotonic()
    save_summaries(path, _current(store, digests))
    usage = getattr(summarizer, "usage", None)  # LLM summarizers report calls and tokens
    if callable(usage):
        run.counts.update(usage())
    return run


@dataclass
class _Writer:
    """Call the summarizer, falling back to the extractive summary when it fails."""

    summarizer: Summarizer
    fallback: Summarizer = field(default_factory=ExtractiveSummarizer)
    failures_in_a_row: int = 0

    def summarize(self, document: Document) -> tuple[str, bool]:
        """Return (summary, whether the summarizer wrote it rather than the fallback)."""
        if self.failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            return self.fallback.summarize(document), False
        try:
            text = self.summarizer.summarize(document)
        except SummaryFailure as failure:
            self.failures_in_a_row += 1
            logger.warning(
                "summary of %s by %s failed (%s); using the extractive summary",
                document.doc_id,
                self.summarizer.summarizer_id,
                failure,
            )
            if self.failures_in_a_row == MAX_FAILURES_IN_A_ROW:
                logger.warning(
                    "%d summaries failed in a row: the remaining documents of this build get "
                    "extractive summaries; the next build tries %s again",
                    MAX_FAILURES_IN_A_ROW,
                    self.summarizer.summarizer_id,
                )
            return self.fallback.summarize(document), False
        self.failures_in_a_row = 0
        return text, True


def _current(store: SummaryFile, digests: dict[str, str]) -> SummaryFile:
    """Keep only summaries of documents still in the corpus, written from their content."""
    kept = {
        doc_id: {
            summarizer_id: stored
            for summarizer_id, stored in store.summaries.get(doc_id, {}).items()
            if stored.digest == digest
        }
        for doc_id, digest in digests.items()
    }
    return SummaryFile(summaries={doc_id: by for doc_id, by in kept.items() if by})


def load_summaries(path: Path) -> SummaryFile:
    """Read stored summaries; a missing or unreadable file only means none are stored."""
    if not path.is_file():
        return SummaryFile()
    try:
        return SummaryFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as err:
        logger.warning("%s is unreadable (%s); every summary is written again", path, err)
        return SummaryFile()


def save_summaries(path: Path, store: SummaryFile) -> None:
    """Write the stored summaries atomically."""
    write_text_atomically(path, store.model_dump_json())
