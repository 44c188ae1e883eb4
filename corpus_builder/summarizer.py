"""What every document summarizer shares: the protocol, its failure and the length cap."""

from __future__ import annotations

from typing import Protocol

from state.corpus import Document

SUMMARY_MAX_CHARS = 700


class SummaryFailure(Exception):
    """A summarizer could not write this document's summary (the builder falls back)."""


class Summarizer(Protocol):
    """Write a short textual summary of a document.

    `summarizer_id` names the method and its version: stored summaries are reused only
    while it stays the same, so change it whenever the output would change.
    """

    summarizer_id: str

    def summarize(self, document: Document) -> str:
        """Return the summary of one document; raise SummaryFailure when there is none."""
        ...


def clip(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """Cut text at a word boundary so it fits in limit characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return f"{cut}…"
