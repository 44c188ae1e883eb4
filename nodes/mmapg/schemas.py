"""What the LLM must return to MMAPG's nodes; field descriptions double as instructions."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from nodes.core.schemas import LLMReply

MAX_SUBQUESTIONS = 5
"""Sub-questions an overall plan may list (as FiF's and LILaC's decompositions)."""
MAX_PARALLEL = 3
"""Retrieval nodes the planner may create in one step (they run in parallel)."""


def _label(value: Any) -> Any:
    """Accept a label in any case and with stray spaces ("Retrieval ")."""
    return value.strip().lower() if isinstance(value, str) else value


class OverallPlanReply(LLMReply):
    """The overall plan P_plan: key sub-questions and how they combine."""

    sub_questions: list[str] = Field(
        min_length=1, max_length=MAX_SUBQUESTIONS, description="Self-contained sub-questions."
    )
    plan: str = Field("", description="How the pieces combine into the answer.")

    @field_validator("sub_questions")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        cleaned = [" ".join(text.split()) for text in value if text and text.strip()]
        if not cleaned:
            raise ValueError("sub_questions are all blank")
        return cleaned


class NewNode(LLMReply):
    """One node the planner adds: its type, parents and instruction."""

    type: Literal["question", "answer", "retrieval", "stop"]
    parents: list[int] = Field(default_factory=list, description="Ids of existing nodes.")
    instruction: str = Field("", description="What the node must do or find.")

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Any:
        return _label(value)


class PlannerReply(LLMReply):
    """The planner's analysis of the graph and the node(s) to add next."""

    analysis: str = ""
    nodes: list[NewNode] = Field(min_length=1, max_length=MAX_PARALLEL)


class SplitReply(LLMReply):
    """A retrieval instruction split into text and image parts, with what to search for."""

    text_part: str = ""
    image_part: str = ""
    image_mode: Literal["none", "targeted", "descriptive"] = "none"
    key_phrases: list[str] = Field(default_factory=list, max_length=8)
    targets: list[str] = Field(default_factory=list, max_length=5)
    image_question: str = ""

    @field_validator("image_mode", mode="before")
    @classmethod
    def _mode(cls, value: Any) -> Any:
        return _label(value)


class Relevant(BaseModel):
    """A candidate the examination keeps, with what it holds."""

    index: int = Field(ge=0)
    information: str = Field(min_length=1)


class ExaminationReply(LLMReply):
    """Which candidates hold what the instruction asks, and what was found overall."""

    relevant: list[Relevant] = Field(default_factory=list)
    summary: str = ""


class AnswerReply(LLMReply):
    """A short answer."""

    answer: str = Field(min_length=1)


class PassageTriplets(BaseModel):
    """The triplets of one numbered passage."""

    index: int = Field(ge=0)
    triplets: list[str] = Field(default_factory=list)


class TripletsReply(LLMReply):
    """Relational triplets per passage."""

    passages: list[PassageTriplets] = Field(default_factory=list)
