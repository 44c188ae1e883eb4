"""Pydantic schemas the chat model must fill; field descriptions double as instructions."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from state.core import Granularity


class PlannedTasks(BaseModel):
    """A list of component-targeting retrieval tasks."""

    tasks: list[str] = Field(
        min_length=1,
        max_length=5,
        description="Short imperative retrieval tasks, prerequisites first, no pronouns.",
    )

    @field_validator("tasks")
    @classmethod
    def _non_empty(cls, tasks: list[str]) -> list[str]:
        cleaned = [task.strip() for task in tasks if task and task.strip()]
        if not cleaned:
            raise ValueError("tasks must contain at least one non-empty string")
        return cleaned


class SearchDecision(BaseModel):
    """The orchestrator's next action."""

    next_action: Literal["search", "replan", "stop"]
    next_retrieval_subtask: str | None = Field(
        None, description="For search: the concrete retrieval task to run next."
    )
    document_search_mode: Literal["neighbors", "vector search", "llm reasoning"] | None = None
    component_search_mode: Literal["vector search", "llm reasoning"] | None = None
    vector_granularity: Granularity | None = "document"
    anchor: int | None = Field(None, description="0-based index of a memory step to start from.")


class Decision(BaseModel):
    """Wrapper matching the prompt's {"action": {...}} contract."""

    action: SearchDecision


class Selected(BaseModel):
    """One candidate picked by index, with a relevance score."""

    index: int = Field(ge=0)
    score: float = Field(0.5, ge=0.0, le=1.0)


class Selection(BaseModel):
    """Candidates selected by the LLM, best first."""

    selection: list[Selected] = Field(default_factory=list)


class UpdatedSubquery(BaseModel):
    """A subquery that became answerable, with its answer."""

    index: int = Field(ge=1, description="1-based index in the subquery list.")
    status: Literal["answerable"] = "answerable"
    answer: str = Field(min_length=1)


class Evaluation(BaseModel):
    """Whether the traversal answered its subquery, and which others became answerable."""

    status: Literal["answerable", "not answerable"]
    updated_subtasks: list[UpdatedSubquery] = Field(default_factory=list)


class Reranking(BaseModel):
    """The final top-k, best first."""

    ranking: list[Selected] = Field(default_factory=list)
