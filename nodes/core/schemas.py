"""Pydantic schemas of the LLM decisions every system shares (descriptions instruct).

Also the text checks the systems' own schemas share: a model's text field is one line of
single-spaced words, and a blank one is refused with a message the repair prompt shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field


class LLMReply(BaseModel):
    """Base of a system's LLM output schema: keys a model adds beyond the schema are ignored."""

    model_config = ConfigDict(extra="ignore")


def one_line(text: str, name: str) -> str:
    """Return `text` on one line with single spaces.

    Raises:
        ValueError: If nothing but whitespace is left ("<name> is blank").
    """
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValueError(f"{name} is blank")
    return cleaned


def one_line_each(texts: Sequence[str], name: str) -> list[str]:
    """Return every text on one line with single spaces.

    Raises:
        ValueError: If one is blank ("<name> is blank", e.g. name="a subquery").
    """
    cleaned = [" ".join(text.split()) for text in texts]
    if any(not text for text in cleaned):
        raise ValueError(f"{name} is blank")
    return cleaned


class Answer(BaseModel):
    """A short answer grounded in the given components."""

    answer: str = Field(description="The shortest span that answers the question.")
    sources: list[int] = Field(
        default_factory=list,
        description="0-based indices of the components the answer is taken from.",
    )
