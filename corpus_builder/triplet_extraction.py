"""Ask a chat model for the relational triplets of text units (seed 003, §3.2, eq. 1).

A unit is what one triplet list is extracted from: a paragraph (a long one in runs of
whole sentences), or one row of a table set under its header and caption, as the seed
turns table rows into sentences. Units are sent in numbered batches (BATCH_UNITS units,
about BATCH_CHARS characters) and the reply is validated against `TripletReply`; a reply
that is not JSON, breaks the schema or names a passage that was not sent is repaired and
retried by tools.llm_calls. A batch that still fails is skipped and reported, and a
passage missing from an otherwise valid reply counts as failed: neither is stored, so the
next build asks again. After MAX_FAILURES_IN_A_ROW failed calls the build stops asking.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from corpus_builder.chat_stage import ChatStage
from corpus_builder.llm_summaries import model_label
from corpus_builder.prompts import TRIPLET_PROMPT_VERSION, TRIPLET_SYSTEM, TRIPLET_USER
from corpus_builder.texts import component_text, context_title, subcomponent_text, with_title
from state.corpus import Document, PageSpan, Subcomponent
from state.settings import RunSettings
from tools.chat_models import REGISTERED_PREFIX, load_chat_model, packaged_smollm2
from tools.errors import ConfigError, MissingDependencyError, ModelUnavailableError, install_hint

logger = logging.getLogger(__name__)

MAX_TRIPLETS = 12
"""Triplets kept per unit (asked for in the prompt; extra ones are cut)."""
PART_CHARS = 160
"""A subject, relation or object is cut to this length."""
UNIT_CHARS = 1500
"""A longer paragraph is split into runs of whole sentences of about this size."""
BATCH_UNITS = 8
BATCH_CHARS = 4000
MAX_FAILURES_IN_A_ROW = 5
TRIPLET_MAX_OUTPUT_TOKENS = 1024
"""Reply cap of the in-process model: a batch of triplets is longer than a summary."""
NO_MODEL = (
    "--triplets extracts triplets with a chat model and none is configured: pass --backend "
    "openai (with --chat-model, and the key in $OPENAI_API_KEY or --base-url URL of an "
    "OpenAI-compatible server) or --backend local (--local-model PATH.gguf, default the "
    "packaged SmolLM2), or set FIF_BACKEND. Without a model, leave --triplets out: MMAPG's "
    "text KB is then the sentences and table rows"
)


@dataclass(frozen=True)
class TripletUnit:
    """One text the model reads: its owner node (paragraph or row), document and text."""

    owner: str
    doc_id: str
    component_id: str
    text: str
    pages: PageSpan | None = None

    @property
    def digest(self) -> str:
        """Hash what the model reads: the store's key."""
        return hashlib.sha1(self.text.encode()).hexdigest()


class Triplet(BaseModel):
    """One fact: subject, relation, object."""

    subject: str = Field(description="Who or what the fact is about, named in full.")
    relation: str = Field(description="A short relation, e.g. 'born in'.")
    object: str = Field(description="The value: a name, date, place or quantity.")

    @field_validator("subject", "relation", "object")
    @classmethod
    def _filled(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("a triplet part is blank")
        return value[:PART_CHARS]

    def text(self) -> str:
        """Return the triplet as the KB embeds it: `subject | relation | object`."""
        return f"{self.subject} | {self.relation} | {self.object}"


class PassageTriplets(BaseModel):
    """The triplets of one numbered passage."""

    index: int = Field(ge=0, description="The passage number.")
    triplets: list[Triplet] = Field(default_factory=list)


class TripletReply(BaseModel):
    """What the model must reply: triplets per numbered passage."""

    passages: list[PassageTriplets]


def text_units(
    documents: Sequence[Document], subcomponents: dict[str, list[Subcomponent]]
) -> list[TripletUnit]:
    """Return the units of a corpus: paragraphs (long ones in sentence runs) and table rows."""
    units: list[TripletUnit] = []
    for document in documents:
        for component in document.components:
            parts = subcomponents.get(component.component_id, [])
            cid, doc_id = component.component_id, document.doc_id
            if component.kind == "table":
                rows = [p for p in parts if p.kind == "row"]
                units += [
                    TripletUnit(row.subcomponent_id, doc_id, cid,
                                subcomponent_text(document, component, row), row.pages)
                    for row in rows
                ]  # fmt: skip
                if not rows:
                    text = component_text(document, component)
                    units.append(TripletUnit(cid, doc_id, cid, text, component.pages))
            elif component.kind == "paragraph" and component.text.strip():
                text = component_text(document, component)
                if len(text) <= UNIT_CHARS or not parts:
                    units.append(TripletUnit(cid, doc_id, cid, text, component.pages))
                    continue
                title = context_title(document, component)
                for run in sentence_runs(parts):
                    units.append(TripletUnit(run[0].subcomponent_id, doc_id, cid,
                                             with_title(title, " ".join(p.text for p in run)),
                                             run[0].pages))  # fmt: skip
    return units


def sentence_runs(sentences: Sequence[Subcomponent]) -> Iterator[list[Subcomponent]]:
    """Group consecutive sentences into runs of about UNIT_CHARS characters."""
    run: list[Subcomponent] = []
    size = 0
    for sentence in sentences:
        if run and size + len(sentence.text) > UNIT_CHARS:
            yield run
            run, size = [], 0
        run.append(sentence)
        size += len(sentence.text) + 1
    if run:
        yield run


def batches(units: Sequence[TripletUnit]) -> Iterator[list[TripletUnit]]:
    """Pack units in order into calls of at most BATCH_UNITS units and ~BATCH_CHARS chars."""
    batch: list[TripletUnit] = []
    size = 0
    for unit in units:
        if batch and (len(batch) >= BATCH_UNITS or size + len(unit.text) > BATCH_CHARS):
            yield batch
            batch, size = [], 0
        batch.append(unit)
        size += len(unit.text)
    if batch:
        yield batch


class TripletExtractor(ChatStage):
    """Triplets written by the context's chat model (openai, local or a registered model)."""

    def __init__(self, context: RunSettings) -> None:
        """Name the extractor after prompt and model; the model itself loads on first use."""
        super().__init__(context, TRIPLET_MAX_OUTPUT_TOKENS)
        self.extractor_id = f"{TRIPLET_PROMPT_VERSION}:{model_label(context)}"

    def check(self) -> None:
        """Fail before anything is built when the chat model cannot be reached from here.

        Raises:
            ConfigError: If no backend is configured, or the openai backend has no key.
            MissingDependencyError: If the local backend's runtime or model is not installed.
            ModelUnavailableError: If the local model file does not exist.
        """
        context = self.context
        if context.backend == "offline":
            raise ConfigError(NO_MODEL)
        if context.backend == "local" and not context.chat_model.startswith(REGISTERED_PREFIX):
            path = context.local_model_path or packaged_smollm2()
            if not Path(path).is_file():
                raise ModelUnavailableError(f"--local-model {path!r}: no such GGUF file")
            if find_spec("xllamacpp") is None:
                raise MissingDependencyError(
                    f"--triplets with --backend local needs xllamacpp: {install_hint('local')}"
                )
            return
        load_chat_model(context)  # openai: builds the client, which checks the key; no call

    def extract(self, units: Sequence[TripletUnit]) -> dict[int, list[str]]:
        """Return the triplets of each answered unit, by its position in `units`.

        Raises:
            LLMFailure: If no valid reply came within the retry budget.
        """
        listing = "\n".join(f"{i}: {' '.join(u.text.split())}" for i, u in enumerate(units))

        def known(reply: TripletReply) -> None:
            wrong = sorted({p.index for p in reply.passages if p.index >= len(units)})
            if wrong:
                raise ValueError(
                    f"passages {wrong} were not sent; answer passages 0 to {len(units) - 1}"
                )

        reply = self.caller().call(
            TripletReply,
            TRIPLET_SYSTEM.format(max_triplets=MAX_TRIPLETS),
            TRIPLET_USER.format(passages=listing),
            self.meter,
            known,
        )
        found: dict[int, list[str]] = {}
        for passage in reply.passages:  # a passage listed twice: both lists count
            found.setdefault(passage.index, []).extend(t.text() for t in passage.triplets)
        return {i: list(dict.fromkeys(texts))[:MAX_TRIPLETS] for i, texts in found.items()}

    def usage(self) -> dict[str, Any]:
        """Return the LLM calls, tokens and dollars spent so far."""
        meter = self.meter
        return {"llm_calls": meter.llm_calls, "input_tokens": meter.input_tokens,
                "output_tokens": meter.output_tokens, "usd": round(meter.usd, 6)}  # fmt: skip


def load_triplet_extractor(context: RunSettings) -> TripletExtractor:
    """Return the extractor of `fif build --triplets` after checking its model is configured.

    Raises:
        ConfigError: If the context names no chat model (offline), naming what to set.
    """
    extractor = TripletExtractor(context)
    extractor.check()
    return extractor
