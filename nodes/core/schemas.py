"""Pydantic schemas of the LLM decisions every system shares (descriptions instruct)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Answer(BaseModel):
    """A short answer grounded in the given components."""

    answer: str = Field(description="The shortest span that answers the question.")
    sources: list[int] = Field(
        default_factory=list,
        description="0-based indices of the components the answer is taken from.",
    )
