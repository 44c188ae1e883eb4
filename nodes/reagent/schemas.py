"""What the LLM must return to ReAgent's agents; field descriptions double as instructions."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from nodes.core.schemas import LLMReply, one_line_each

MAX_SUBQUESTIONS = 5
"""The decomposer's ceiling; the seed's Figure 4 found gains flatten beyond 3."""
MAX_ASSERTIONS = 5
"""A retriever agent reads at most this many assertions from one evidence set."""


class SubQuestions(LLMReply):
    """The decomposer's answer."""

    sub_questions: list[str] = Field(
        min_length=1,
        max_length=MAX_SUBQUESTIONS,
        description="Self-contained sub-questions, prerequisites first; one if Q needs one hop.",
    )
    reasoning: str = Field("", description="One sentence on why this decomposition.")

    @field_validator("sub_questions")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        return one_line_each(value, "a sub-question")


class ExtractedAssertion(LLMReply):
    """One claim read from one numbered evidence passage."""

    evidence: int = Field(ge=1, description="Number of the passage that states the claim.")
    entity: str = Field(min_length=1, description="What the claim is about (a name).")
    attribute: str = Field(description="Which property of the entity (e.g. 'birth year').")
    value: str = Field(description="The property's value as stated; empty if none.")
    statement: str = Field(min_length=1, description="The claim as one short sentence.")


class Assertions(LLMReply):
    """A retriever agent's answer: the claims its evidence makes about the sub-question."""

    assertions: list[ExtractedAssertion] = Field(
        max_length=MAX_ASSERTIONS, description="Claims that answer the sub-question, best first."
    )


class Verdict(LLMReply):
    """The verifier's judgement of one new assertion."""

    assertion: str = Field(description="Id of the new assertion judged.")
    verdict: Literal["supported", "unsupported", "contradicts"] = Field(
        description="supported: its passage states it and nothing held contradicts it; "
        "unsupported: its passage does not state it; contradicts: a held assertion says otherwise."
    )
    conflicts_with: str | None = Field(
        None, description="Id of the held assertion it contradicts (verdict 'contradicts')."
    )


class Verification(LLMReply):
    """The verifier's answer: one verdict per new assertion."""

    verdicts: list[Verdict] = Field(description="One verdict for every new assertion.")
