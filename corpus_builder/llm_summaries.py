"""LLM-written document summaries: one structured call per document, bounded in and out.

The document goes to the chat model as text (title, paragraphs, tables as header + first
rows, image captions), cut to SUMMARY_INPUT_CHARS; the reply is validated against
`DocumentSummary`, repaired and retried by tools.llm_calls, and cut to SUMMARY_MAX_CHARS.
A call that still fails raises SummaryFailure, and the builder uses the extractive summary.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from corpus_builder.chat_stage import ChatStage
from corpus_builder.prompts import (
    SUMMARY_MAX_WORDS,
    SUMMARY_PROMPT_VERSION,
    SUMMARY_SYSTEM,
    SUMMARY_USER,
)
from corpus_builder.summarizer import SUMMARY_MAX_CHARS, SummaryFailure, clip
from state.corpus import Component, Document
from state.render import content_text
from state.settings import RunSettings
from tools.chat_models import REGISTERED_PREFIX, packaged_smollm2
from tools.llm_calls import LLMFailure
from tools.not_blank import not_blank

logger = logging.getLogger(__name__)

SUMMARY_INPUT_CHARS = 6000
"""Document text sent per call: enough for a page's lead and tables, small for local models."""
TABLE_ROWS = 5
SUMMARY_MAX_OUTPUT_TOKENS = 256
"""Reply cap for the in-process model: a summary needs ~130 tokens, and a small model that
loops would otherwise run to the server's cap and past the call timeout on 2 cores. Hosted
models get no cap: reasoning models spend output tokens before they answer."""
MIN_BLOCK_CHARS = 200
"""A component cut shorter than this is left out rather than sent as a stub."""


class DocumentSummary(BaseModel):
    """What the model must reply: the summary text."""

    summary: str = Field(
        min_length=1,
        description=f"At most {SUMMARY_MAX_WORDS} words of plain prose: what the document is "
        "about and which facts its paragraphs, tables and images hold.",
        # In the schema only: servers that turn the schema into a grammar (llama.cpp) then
        # close the string in time; a longer reply from any other model is cut, not refused.
        json_schema_extra={"maxLength": SUMMARY_MAX_CHARS},
    )

    _not_blank = field_validator("summary")(not_blank("the summary is blank"))


def summary_request(document: Document, limit: int = SUMMARY_INPUT_CHARS) -> str:
    """Render a document as the user message of a summary call, cut to about limit chars."""
    blocks: list[str] = []
    room = limit
    for component in document.components:
        block = _component_text(component)
        if len(block) > room:
            if room >= MIN_BLOCK_CHARS:
                blocks.append(clip(block, room))
            blocks.append("[the rest of the document is left out]")
            break
        if block:
            blocks.append(block)
            room -= len(block)
    content = "\n\n".join(blocks) or "(no text)"
    return SUMMARY_USER.format(title=document.title or document.doc_id, content=content)


def _component_text(component: Component) -> str:
    if component.kind == "table" and component.table is not None:
        caption = f"Table: {component.text}" if component.text else "Table:"
        table = (component.table.header, component.table.rows)
        return content_text(caption, component.kind, table, TABLE_ROWS)
    if component.kind == "image":
        return f"Image: {component.text}" if component.text else ""
    return component.text


class LLMSummarizer(ChatStage):
    """Summaries written by the context's chat model (openai, local or a registered model)."""

    def __init__(self, context: RunSettings) -> None:
        """Name the summarizer after prompt and model; the model itself loads on first use."""
        super().__init__(context, SUMMARY_MAX_OUTPUT_TOKENS)
        self.summarizer_id = f"llm-{SUMMARY_PROMPT_VERSION}:{model_label(context)}"

    def summarize(self, document: Document) -> str:
        """Return the model's summary of a document, cut to the summary length bound."""
        try:
            reply = self.caller().call(
                DocumentSummary, SUMMARY_SYSTEM, summary_request(document), self.meter
            )
        except LLMFailure as failure:
            raise SummaryFailure(str(failure)) from failure
        return clip(whole_sentences(reply.summary))

    def usage(self) -> dict[str, Any]:
        """Return the LLM calls and tokens spent so far."""
        return {
            "llm_calls": self.meter.llm_calls,
            "input_tokens": self.meter.input_tokens,
            "output_tokens": self.meter.output_tokens,
        }


def whole_sentences(text: str) -> str:
    """Drop an unfinished last sentence (a reply that ran into its length limit)."""
    text = text.strip()
    if text.endswith((".", "!", "?", '"', ")")):
        return text
    end = max(text.rfind(". "), text.rfind("! "), text.rfind("? "))
    return text[: end + 1] if end > len(text) // 2 else text


def model_label(context: RunSettings) -> str:
    """Name the chat model a context selects, without loading it."""
    if context.chat_model.startswith(REGISTERED_PREFIX):
        return context.chat_model.removeprefix(REGISTERED_PREFIX)
    if context.backend == "local":
        return Path(context.local_model_path or packaged_smollm2()).stem
    return context.chat_model
