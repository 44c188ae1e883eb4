"""The iterative extraction loop's state (seed 002): findings, failed searches, verdicts.

Two agents take turns, one shopping item at a time: the extractor fetches sections of
the document's section tree for the current item (the question itself first, then what
the synthesizer said it still needs) and writes structured findings with their page and
section, or a failed search with its reason; the synthesizer sees only those records,
never page text, and answers, names the ONE item it still needs, or fails. Everything
that records what happened is append-only, so findings are never overwritten.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, DecidedOutput, QuestionState, Ranked
from state.settings import RunSettings

Status = Literal["answer", "needs", "fail"]
ExtractionNode = Literal["extractor", "synthesizer", "ranker"]


class Finding(TypedDict):
    """One extracted data point with its provenance (the seed's Finding)."""

    label: str
    value: float | str
    """A number when the text states one, else the statement itself."""
    unit: str | None
    page: int | None
    """Zero-indexed PDF page the value is printed on (None for documents without pages)."""
    section: str
    """The heading of the section it came from."""
    context: str
    """The sentence or table row that states it."""
    component_id: str
    """The component that states it (what the ranking is built from)."""
    doc_id: str
    iteration: int
    """The extraction (1-based) that found it."""
    score: float
    """How well it matched its shopping item (offline rules) or 1.0 (chat model)."""


class FailedSearch(TypedDict):
    """An extraction that found nothing relevant, and why (the seed's failed search)."""

    item: str
    reason: str
    sections_tried: list[str]
    iteration: int


class Searched(TypedDict):
    """A component the loop looked at: a search hit or a block of a fetched section."""

    component_id: str
    doc_id: str
    type: str
    iteration: int


class Verdict(TypedDict):
    """What the synthesizer decided after one extraction."""

    iteration: int
    status: Status
    answer: str | None
    sources: list[str]
    """Pages ("DOC#PAGE") or finding labels the answer rests on."""
    confidence: str | None
    needs: str | None
    """The one item still needed (status "needs")."""
    reason: str | None
    calculation: dict[str, object] | None
    """The calculator's check of the answer's arithmetic: expression, result, agreed."""
    decided_by: str


class ExtractionStep(TypedDict, total=False):
    """One trace record: an extraction, a synthesis or the final ranking."""

    node: ExtractionNode
    step: int
    """The iteration it belongs to (the ranker: the number of iterations run)."""
    decided_by: str
    reason: str
    query: str
    """extractor: the shopping item; synthesizer: what it needs next, or its answer."""
    sections: list[str]
    """extractor: the sections fetched (id and heading)."""
    findings: int
    """extractor: findings added."""
    prompt_version: str | None


@with_config(FIELD_DOCS)
class ExtractionOutputState(DecidedOutput, total=False):
    """What a caller gets back: ranking, answer, findings, failures, verdicts, trace, cost."""

    ranking: list[Ranked]
    """The final top-k components (ranker)."""
    answer: str | None
    """The synthesizer's answer, or the ranker's reading when asked for one."""
    findings: Annotated[list[Finding], operator.add]
    """Every finding so far (extractor appends; never overwritten)."""
    failed_searches: Annotated[list[FailedSearch], operator.add]
    """Every extraction that found nothing, with its reason (extractor appends)."""
    verdicts: Annotated[list[Verdict], operator.add]
    """One synthesizer verdict per iteration (synthesizer appends)."""
    trace: Annotated[list[ExtractionStep], operator.add]
    """What each node did and who decided (every node appends, fallbacks included)."""


class ExtractionState(ExtractionOutputState, QuestionState, total=False):
    """The whole checkpointed state of one run of the loop: its output and its working fields.

    The question is also the loop's first shopping item.
    """

    documents: list[str]
    """The documents the loop works in, chosen by the first extraction's search hits."""
    searched: Annotated[list[Searched], operator.add]
    """Every component looked at, hits first, in the order seen (extractor appends)."""


class ExtractionContext(RunSettings):
    """Run settings of the extraction loop: the shared RunSettings plus the loop's own knobs."""

    max_iterations: int = Field(
        4, ge=1, le=10, description="Extraction + synthesis rounds at most (the seed's N = 4)."
    )
    seed_hits: int = Field(
        20, ge=1, le=100, description="Hybrid search hits mapped onto sections per shopping item."
    )
    max_documents: int = Field(
        2, ge=1, le=10, description="Documents the loop works in, from the first search's hits."
    )
    sections_per_item: int = Field(
        3, ge=1, le=5, description="Sections fetched per shopping item (the seed: 1-3)."
    )
    section_shortlist: int = Field(
        25, ge=1, le=100, description="Sections shown to the chat model to choose from."
    )
    section_chars: int = Field(
        5000, ge=500, le=50_000, description="Characters of one fetched section shown to a model."
    )
    findings_per_item: int = Field(
        6, ge=1, le=20, description="Findings the offline rules keep per shopping item."
    )
    token_budget: int = Field(
        25_000,
        ge=0,
        description="LLM tokens per question (the seed: under 25k); past it, offline twins decide.",
    )
