"""What the LLM must return to LILaC's decomposer; field descriptions double as instructions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator

from nodes.core.schemas import LLMReply, one_line, one_line_each

MAX_SUBQUERIES = 5
"""Seed 001, Appendix F: "the smallest set (1 – 5) of component-targeting sub-queries"."""


def _label(value: Any) -> Any:
    """Accept a modality label in any case and with stray spaces ("Table ")."""
    return value.strip().lower() if isinstance(value, str) else value


ModalityLabel = Annotated[Literal["text", "table", "image"], BeforeValidator(_label)]
"""A component modality as a model labels it, read in any case."""


class PlannedSubquery(LLMReply):
    """One component-targeting subquery with the modality of the component it targets."""

    text: str = Field(
        min_length=1,
        description=(
            "A self-contained search query for ONE component (sentence, paragraph, table row, "
            "image); keep the question's entity names and noun phrases verbatim."
        ),
    )
    modality: ModalityLabel = Field(
        description="text = prose, table = rows/columns or statistics, image = visual appearance."
    )

    @field_validator("text")
    @classmethod
    def _strip(cls, value: str) -> str:
        return one_line(value, "subquery text")


class Decomposition(LLMReply):
    """The decomposer's answer when subqueries and modalities come in one call (joint mode)."""

    subqueries: list[PlannedSubquery] = Field(
        min_length=1,
        max_length=MAX_SUBQUERIES,
        description="1 to 5 subqueries, prerequisites first; one if one component answers.",
    )


class SubqueryList(LLMReply):
    """The decomposer's answer when modalities are chosen by separate calls (separate mode)."""

    subqueries: list[str] = Field(
        min_length=1,
        max_length=MAX_SUBQUERIES,
        description="1 to 5 self-contained component-targeting subqueries, prerequisites first.",
    )

    @field_validator("subqueries")
    @classmethod
    def _no_blank(cls, value: list[str]) -> list[str]:
        return one_line_each(value, "a subquery")


class ModalityChoice(LLMReply):
    """The modality selector's answer for one subquery."""

    modality: ModalityLabel = Field(
        description="The one modality most likely to hold the answer to the subquery."
    )
