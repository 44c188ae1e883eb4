"""Document summaries for layer 0: extractive by default, LLM-written when a chat model is set."""

from __future__ import annotations

import logging
from typing import Protocol

from corpus_builder.splitters import split_sentences
from state.corpus import Document

logger = logging.getLogger(__name__)

SUMMARY_MAX_CHARS = 700
LEAD_SENTENCES = 2


class Summarizer(Protocol):
    """Write a short textual summary of a document."""

    summarizer_id: str

    def summarize(self, document: Document) -> str:
        """Return the summary of one document."""
        ...


def clip(text: str, limit: int = SUMMARY_MAX_CHARS) -> str:
    """Cut text at a word boundary so it fits in limit characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return f"{cut}…"


class ExtractiveSummarizer:
    """Title, lead sentences, table captions and headers, image captions; bounded length."""

    summarizer_id = "extractive-v1"

    def summarize(self, document: Document) -> str:
        """Assemble the summary from the document's own text, most important parts first."""
        parts = [document.title]
        paragraphs = [c for c in document.components if c.kind == "paragraph"]
        if paragraphs:
            parts.append(" ".join(split_sentences(paragraphs[0].text)[:LEAD_SENTENCES]))
        for component in document.components:
            if component.kind == "table" and component.table is not None:
                columns = ", ".join(h for h in component.table.header if h)
                caption = component.text or "table"
                parts.append(f"Table: {caption} ({columns})" if columns else f"Table: {caption}")
            elif component.kind == "image" and component.text:
                parts.append(f"Image: {component.text}")
        return clip(". ".join(part.rstrip(". ") for part in parts if part) + ".")
