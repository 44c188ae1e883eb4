"""The typed requests of the JSON API, with the limits that turn bad input into a clear 4xx."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graph_agent.systems import ASK_SYSTEMS
from state.context import Backend
from tools.request_limits import MAX_QUESTION_CHARS

MAX_K = 100
NOT_BLANK = r"\S"
"""A query or question must hold a character other than whitespace."""
THREAD_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
CHECKPOINT_PATTERN = r"^[0-9a-fA-F-]{1,64}$"
Granularity = Literal["document", "component", "subcomponent"]


def known_system(name: str) -> str:
    """Return a registered system name, or raise naming the known ones."""
    if name not in ASK_SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(ASK_SYSTEMS)}")
    return name


class RunSettings(BaseModel):
    """Settings of one run that the page may change (the rest come from FIF_* env)."""

    model_config = ConfigDict(extra="forbid")

    backend: Backend = Field("offline", description="Who makes the reasoning decisions.")
    k: int = Field(10, ge=1, le=MAX_K, description="Components in the final ranking.")
    answer: bool = Field(False, description="Also write a short grounded answer.")
    max_steps: int | None = Field(None, ge=1, le=50, description="Traversal budget.")


class AskRequest(RunSettings):
    """A question for one system (POST /api/ask and /api/runs)."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    system: str = Field("fif", description="A system of `fif ask --system`.")
    thread_id: str | None = Field(None, pattern=THREAD_PATTERN, description="Default: a new one.")

    _system = field_validator("system")(known_system)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, question: str) -> str:
        if not question.strip():
            raise ValueError("the question is blank")
        return question


class AskQuery(AskRequest):
    """An AskRequest given as query parameters (GET /api/ask/stream); `token` may ride along."""

    model_config = ConfigDict(extra="ignore")


class CompareRequest(RunSettings):
    """One question for several systems side by side (POST /api/compare)."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, pattern=NOT_BLANK)
    systems: list[str] = Field(min_length=1, max_length=len(ASK_SYSTEMS))

    @field_validator("systems")
    @classmethod
    def _known(cls, systems: list[str]) -> list[str]:
        return [known_system(name) for name in dict.fromkeys(systems)]


class ForkRequest(BaseModel):
    """Fork a FiF thread from one of its checkpoints, optionally with another budget."""

    model_config = ConfigDict(extra="forbid")

    checkpoint_id: str = Field(pattern=CHECKPOINT_PATTERN)
    max_steps: int | None = Field(None, ge=1, le=50, description="New traversal budget.")
    backend: Backend | None = Field(None, description="Another backend for the rerun.")
    subquery: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        pattern=NOT_BLANK,
        description="Search this instead (a checkpoint whose next node is the traverser).",
    )
