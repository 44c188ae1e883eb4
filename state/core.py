"""What every system's state shares: input, question, ranking entry, output bases, cost sums.

Also the search layers and modes, and the trace record of one node's decision. No system
owns these; each system's state module imports them like the rest.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from state.corpus import Layer

FIELD_DOCS = ConfigDict(use_attribute_docstrings=True)
"""For `with_config`: Studio's JSON schemas take each field's docstring as its description."""
Granularity = Layer
"""The layer a search scores at (document summaries, components or subcomponents)."""
SearchMode = Literal["dense", "sparse", "hybrid"]
"""How a search ranks: dense vectors, BM25, or both fused by reciprocal rank."""


@with_config(FIELD_DOCS)
class QuestionInput(TypedDict):
    """What a caller passes: the question."""

    question: str
    """The question to find evidence for."""


class QuestionState(TypedDict, total=False):
    """The field every system's working state opens with: the question the run works on."""

    question: str
    """The original question Q (input)."""


class Ranked(TypedDict):
    """One entry of a system's final ranking."""

    component_id: str
    doc_id: str
    type: str
    score: float


class DecisionRecord(TypedDict):
    """One trace record of a node's decision: which node decided what, how, and why.

    The step records of the systems whose nodes each log one decision (MMAPG, ReAgent).
    """

    node: str
    decided_by: str
    reason: str
    prompt_version: str | None
    detail: dict[str, Any]


def add_costs(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Sum two cost tallies key by key (the reducer of every state's `cost`)."""
    total = dict(left or {})
    for key, value in (right or {}).items():
        total[key] = round(total.get(key, 0) + value, 6)
    return total


# A base class's field docstrings do not reach a subclass's JSON schema (Studio's field
# descriptions), so the fields every system's output shares carry theirs in `Field`.
class CostOutput(TypedDict, total=False):
    """The output field every system shares: its cost tally."""

    cost: Annotated[
        dict[str, float],
        Field(description="Accumulated cost tally: each node's delta, and the graph's `work_ms`."),
        add_costs,
    ]


class DecidedOutput(CostOutput, total=False):
    """The cost tally plus the decisions that fell back, for systems whose nodes record them."""

    fallbacks: Annotated[
        list[str],
        Field(description='Every LLM decision replaced by its offline twin: "node: reason".'),
        operator.add,
    ]


def ranked_entry(component_id: str, doc_id: str, kind: str, score: float) -> Ranked:
    """Build one ranking entry (every system's ranking is a list of these)."""
    return {"component_id": component_id, "doc_id": doc_id, "type": kind, "score": score}


def llm_calls(state: Mapping[str, Any]) -> int:
    """Return the LLM calls spent against the budget: answered calls plus failed attempts."""
    cost = state.get("cost", {})
    return int(cost.get("llm_calls", 0) + cost.get("llm_failed_attempts", 0))


def tokens(state: Mapping[str, Any]) -> int:
    """Return the LLM tokens (input and output) a run has spent so far."""
    cost = state.get("cost", {})
    return int(cost.get("input_tokens", 0) + cost.get("output_tokens", 0))
