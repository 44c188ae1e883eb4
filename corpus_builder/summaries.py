"""Document summaries for layer 0: extractive by default, LLM-written when a chat model is set.

`load_summarizer` picks one from `fif build --summaries extractive|openai|local`; the
builder (summary_store) persists what it wrote and falls back to the extractive summary
when an LLM summary fails.
"""

from __future__ import annotations

import logging
from typing import Literal, get_args

from corpus_builder.llm_summaries import LLMSummarizer
from corpus_builder.splitters import split_sentences
from corpus_builder.summarizer import SUMMARY_MAX_CHARS, Summarizer, SummaryFailure, clip
from state.corpus import Document
from state.settings import RunSettings
from tools.errors import ConfigError

logger = logging.getLogger(__name__)
__all__ = [
    "SUMMARY_MAX_CHARS",
    "ExtractiveSummarizer",
    "Summarizer",
    "SummaryFailure",
    "clip",
    "load_summarizer",
]

LEAD_SENTENCES = 2


SummaryChoice = Literal["extractive", "openai", "local"]
SUMMARY_CHOICES: tuple[str, ...] = get_args(SummaryChoice)


class ExtractiveSummarizer:
    """Title, lead sentences, table captions and headers, image captions; bounded length."""

    summarizer_id = "extractive-v1"

    def summarize(self, document: Document) -> str:
        """Assemble the summary from the document's own text, most important parts first."""
        if document.page_count:
            return _pdf_summary(document)
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


def _pdf_summary(document: Document) -> str:
    """Title, filer, form and period, then the section headings (outermost first), bounded."""
    parts = [document.title, *document.facts]
    headings: dict[str, None] = {}
    for depth in (1, 2):  # top-level sections first, then their subsections while room remains
        for component in document.components:
            if len(component.section) >= depth:
                headings.setdefault(component.section[depth - 1], None)
    if headings:
        parts.append("Sections: " + "; ".join(h.rstrip(". ") for h in headings))
    return clip(". ".join(part.rstrip(". ") for part in parts if part) + ".")


def load_summarizer(choice: str, context: RunSettings | None = None) -> Summarizer:
    """Return the summarizer a `--summaries` choice names.

    `openai` and `local` write summaries with the context's chat model (its model name,
    server URL or GGUF file); the model loads on the first summary actually needed.
    """
    if choice == "extractive":
        return ExtractiveSummarizer()
    if choice not in SUMMARY_CHOICES:
        raise ConfigError(f"--summaries {choice!r}: choose one of {', '.join(SUMMARY_CHOICES)}")
    context = context or RunSettings()
    return LLMSummarizer(context.model_copy(update={"backend": choice}))
