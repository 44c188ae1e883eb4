"""The typed requests of the JSON API, with the limits that turn bad input into a clear 4xx."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graph_agent.registry import SYSTEMS
from state.core import Granularity as Layer
from state.fif_state import CompMode, DocMode
from state.settings import Backend
from tools.not_blank import not_blank
from tools.request_limits import MAX_QUESTION_CHARS

MAX_K = 100
NOT_BLANK = r"\S"
"""A query or question must hold a character other than whitespace."""
THREAD_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
CHECKPOINT_PATTERN = r"^[0-9a-fA-F-]{1,64}$"
Granularity = Literal["document", "component", "subcomponent"]


def known_system(name: str) -> str:
    """Return a registered system name, or raise naming the known ones."""
    if name not in SYSTEMS:
        raise ValueError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return name


class PageSettings(BaseModel):
    """Settings of one run that the page may change (the rest come from FIF_* env)."""

    model_config = ConfigDict(extra="forbid")

    backend: Backend = Field("offline", description="Who makes the reasoning decisions.")
    k: int = Field(10, ge=1, le=MAX_K, description="Components in the final ranking.")
    answer: bool = Field(False, description="Also write a short grounded answer.")
    max_steps: int | None = Field(None, ge=1, le=50, description="Traversal budget.")


class AskRequest(PageSettings):
    """A question for one system (POST /api/ask and /api/runs)."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    system: str = Field("fif", description="A system of `fif ask --system`.")
    thread_id: str | None = Field(None, pattern=THREAD_PATTERN, description="Default: a new one.")

    _system = field_validator("system")(known_system)

    _not_blank = field_validator("question")(not_blank("the question is blank"))


class AskQuery(AskRequest):
    """An AskRequest given as query parameters (GET /api/ask/stream); `token` may ride along."""

    model_config = ConfigDict(extra="ignore")


class CompareRequest(PageSettings):
    """One question for several systems side by side (POST /api/compare)."""

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, pattern=NOT_BLANK)
    systems: list[str] = Field(min_length=1, max_length=len(SYSTEMS))

    @field_validator("systems")
    @classmethod
    def _known(cls, systems: list[str]) -> list[str]:
        return [known_system(name) for name in dict.fromkeys(systems)]


class StrategyEdit(BaseModel):
    """The strategy a forked traversal takes: document mode, component mode, granularity."""

    model_config = ConfigDict(extra="forbid")

    doc_mode: DocMode
    comp_mode: CompMode
    granularity: Layer


class ForkRequest(BaseModel):
    """Fork a thread from one of its checkpoints, with another budget, subquery or strategy.

    A subquery or strategy edit needs a checkpoint before a traversal.
    """

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
    strategy: StrategyEdit | None = Field(
        None, description="Traverse this way instead (a checkpoint before the traverser)."
    )

    @field_validator("subquery")
    @classmethod
    def _subquery_not_blank(cls, subquery: str | None) -> str | None:
        if subquery is not None and not subquery.strip():
            raise ValueError("the edited subquery is blank")
        return subquery
