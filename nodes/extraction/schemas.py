"""What the chat model must return at each step of the loop; field descriptions instruct it.

The same schemas serve every backend (openai, local); the offline twins produce the same
records. Checks that need the run (known section ids, fetched pages, finding ids in a
calculation) are validators the caller passes to `StructuredCaller.call`, so a bad reply
is sent back for repair.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from nodes.core.schemas import LLMReply


class SectionChoice(LLMReply):
    """The extraction agent's fetch_section calls: which sections to read for the item."""

    sections: list[str] = Field(
        min_length=1,
        max_length=5,
        description="Ids of the sections to fetch, most promising first (1-3).",
    )


class ExtractedFinding(LLMReply):
    """One data point read from the fetched text, with its provenance."""

    label: str = Field(min_length=1, description="What the value is, with its period.")
    value: float | str = Field(description="The number as a number, else a short statement.")
    unit: str | None = Field(None, description='E.g. "USD millions", "percent"; null if none.')
    page: int | None = Field(description="The page tag the value is printed on (p.N: N).")
    section: str = Field("", description="The heading of the section it came from.")
    context: str = Field("", description="The row or sentence stating it, shortened.")

    @field_validator("value", mode="before")
    @classmethod
    def _number_if_numeric(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return str(value)
        return float(value) if isinstance(value, int) else value


class ExtractionReply(LLMReply):
    """The extraction agent's result: findings, or why the sections held nothing relevant."""

    findings: list[ExtractedFinding] = Field(
        default_factory=list,
        description="3-8 findings: the item's data and anything else relevant nearby.",
    )
    fail: str | None = Field(
        None, description="When nothing relevant was found: why (what the sections hold)."
    )

    @model_validator(mode="after")
    def _findings_or_reason(self) -> ExtractionReply:
        if not self.findings and not (self.fail or "").strip():
            raise ValueError("give findings, or a reason in 'fail'")
        return self


class SynthesisReply(LLMReply):
    """The synthesis agent's verdict: an answer, the ONE item still needed, or a failure."""

    status: Literal["answer", "needs", "fail"]
    answer: str | None = Field(None, description="The answer (status answer).")
    sources: list[str] = Field(
        default_factory=list, description="Finding ids (f1, f2, ...) the answer rests on."
    )
    confidence: Literal["high", "medium", "low"] | None = None
    needs: str | None = Field(
        None, description="The one specific item still needed, with its period (status needs)."
    )
    reason: str | None = Field(None, description="Why: what is missing, or why it fails.")
    calculation: str | None = Field(
        None,
        description="Arithmetic over finding ids behind a computed answer, e.g. 'f2 / f1 * 100'.",
    )

    @model_validator(mode="after")
    def _status_fields(self) -> SynthesisReply:
        if self.status == "answer" and not (self.answer or "").strip():
            raise ValueError("status 'answer' needs a non-empty 'answer'")
        if self.status == "needs" and not (self.needs or "").strip():
            raise ValueError("status 'needs' needs a non-empty 'needs'")
        return self
