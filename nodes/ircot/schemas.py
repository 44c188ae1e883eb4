"""What the LLM must return to IRCoT's reasoner; field descriptions double as instructions."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from nodes.core.schemas import LLMReply, one_line


class NextSentence(LLMReply):
    """One reasoning step: the next chain-of-thought sentence and, at the end, the answer."""

    sentence: str = Field(
        min_length=1,
        description="ONE new sentence of the chain; it is the next search query.",
    )
    answer: str | None = Field(
        None,
        description='The short answer once the sentence says "So the answer is ..."; else null.',
    )

    @field_validator("sentence")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return one_line(value, "the sentence")

    @field_validator("answer", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value
