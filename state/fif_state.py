"""The FiF graph state M_t = (Q, subqueries, action history), plus candidates, ranking and costs.

Everything is plain JSON-like data so checkpoints stay readable and pickle-free. Fields
that record what happened only grow: nodes return new items and reducers merge them.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, DecidedOutput, Granularity, QuestionState, Ranked

DocMode = Literal["neighbors", "vector", "llm"]
CompMode = Literal["vector", "llm"]
SubqueryStatus = Literal["unknown", "answerable", "not answerable"]
SubqueryOrigin = Literal["initial", "replan", "rewrite", "bridge"]
ActionKind = Literal["search", "replan", "stop"]


class Subquery(TypedDict):
    """One retrieval target of the plan; status and answer are set by the evaluator."""

    index: int
    text: str
    status: SubqueryStatus
    answer: str | None
    origin: SubqueryOrigin
    parent: NotRequired[int]
    """For a rewrite: the subquery it replaces; for a bridge: the subquery whose evidence
    named the bridge entity."""
    found: NotRequired[str]
    """For a subquery another subquery's step also answered: that step's top component."""


class Strategy(TypedDict):
    """The strategy tuple τ: how to pick documents, components, and at which granularity."""

    doc_mode: DocMode
    comp_mode: CompMode
    granularity: Granularity


class Found(TypedDict):
    """A document or component returned by a traversal, with its score and evidence node."""

    id: str
    doc_id: str
    kind: str
    score: float
    evidence: NotRequired[str]
    via: NotRequired[str]


class Action(TypedDict):
    """The orchestrator's decision for the next step."""

    kind: ActionKind
    subquery: NotRequired[str]
    subquery_index: NotRequired[int]
    strategy: NotRequired[Strategy]
    anchor: NotRequired[int | None]
    reason: str
    decided_by: str


class StepRecord(TypedDict):
    """One traversal h_k: what was asked, how, from where, what came back and the verdict."""

    step: int
    subquery_index: int
    subquery: str
    strategy: Strategy
    anchor: int | None
    documents: list[Found]
    components: list[Found]
    success: bool
    answerable: bool
    reason: str
    decided_by: str
    notes: list[str]
    cost: dict[str, float]
    bridge: NotRequired[str]
    """The next subquery formed from the bridge entity the step's evidence names (evaluator,
    nodes/fif/bridge.py); the orchestrator asks it once the plan is answered."""
    bridge_pages: NotRequired[list[str]]
    """The documents the bridge entity names (its row's link, or a title); a bridge whose
    page a hop already found is kept as a reranker facet without a hop of its own."""


class Candidate(TypedDict):
    """A component in memory: its best score so far and the step that found it."""

    component_id: str
    doc_id: str
    kind: str
    score: float
    step: int
    via: str


def bridge_entry(
    index: int, text: str, source: StepRecord, status: SubqueryStatus = "unknown"
) -> Subquery:
    """Build the bridge subquery a step's evidence suggests, at plan position `index`."""
    return {"index": index, "text": text, "status": status, "answer": None,
            "origin": "bridge", "parent": source["subquery_index"]}  # fmt: skip


def keep_best(
    left: dict[str, Candidate] | None, right: dict[str, Candidate] | None
) -> dict[str, Candidate]:
    """Merge candidates by component id: the higher score wins, a known link path is kept."""
    merged = dict(left or {})
    for key, candidate in (right or {}).items():
        old = merged.get(key)
        if old is None:
            merged[key] = candidate
        elif candidate["score"] > old["score"]:
            merged[key] = {**candidate, "via": candidate["via"] or old["via"]}
        elif candidate["via"] and not old["via"]:
            merged[key] = {**old, "via": candidate["via"]}  # a link path is worth keeping
    return merged


def merge_subqueries(left: list[Subquery] | None, right: list[Subquery] | None) -> list[Subquery]:
    """Append new subqueries and update existing ones by index; none is ever removed."""
    merged = list(left or [])
    for item in right or []:
        if item["index"] < len(merged):
            merged[item["index"]] = item
        else:
            merged.append({**item, "index": len(merged)})
    return merged


@with_config(FIELD_DOCS)
class OutputState(DecidedOutput, total=False):
    """What a caller gets back: ranking, optional answer, the step trace, the plan and costs."""

    ranking: list[Ranked]
    """The final top-k (reranker)."""
    answer: str | None
    """A short grounded answer (answerer, when asked for)."""
    history: Annotated[list[StepRecord], operator.add]
    """Action history H_t; the evaluator appends each judged traversal, failures included."""
    subqueries: Annotated[list[Subquery], merge_subqueries]
    """The plan: written by the planner (append) and the evaluator (status, answers)."""


class FiFState(OutputState, QuestionState, total=False):
    """The whole checkpointed state of one FiF run: its output and its working fields."""

    analysis: dict[str, Any]
    """What the planner read of Q, once (`nodes.core.question.QuestionAnalysis.as_state`)."""
    pending_step: StepRecord | None
    """The traverser's latest result, awaiting the evaluator's verdict."""
    next_action: Action | None
    """The orchestrator's decision (last write wins)."""
    decisions: Annotated[list[Action], operator.add]
    """Every orchestrator decision, including replans and stops, for the trace."""
    candidates: Annotated[dict[str, Candidate], keep_best]
    """Every component found so far, by id, with its best score (traverser)."""
