"""The ReAgent graph's state (seed 004): sub-questions, evidence, knowledge sets, messages.

ReAgent decomposes the question, retrieves hybrid evidence per sub-question, turns the
evidence into assertions held in per-agent knowledge sets, verifies them, and backtracks
when they conflict: locally (one agent re-queries its sub-question) or globally (the
supervisor forks the run from an earlier checkpoint). Knowledge sets are non-monotonic, so
they are replaced per agent rather than appended; everything that records what happened
(messages, the persistent log of knowledge sets, the trace) is append-only.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, CostOutput, DecisionRecord, QuestionState, Ranked
from state.settings import RunSettings

MessageKind = Literal["assert", "inform", "reject", "challenge"]
Outcome = Literal["consistent", "no-consistent-knowledge"]


class SubQuestion(TypedDict):
    """One sub-question q_i; agent `q<i>` (a retriever agent) answers it."""

    index: int
    text: str


class Evidence(TypedDict):
    """One retrieved component with its fused score and the sentence/row that matched."""

    component_id: str
    doc_id: str
    type: str
    score: float
    unit: str
    """The subcomponent (sentence, table row, region) that earned the component its score."""


class Assertion(TypedDict):
    """A claim an agent holds: a slot (entity, attribute) with a value, backed by evidence."""

    id: str
    agent: str
    subquestion: int
    entity: str
    attribute: str
    value: str
    """The asserted value; empty when the evidence states no comparable value."""
    text: str
    """The sentence or row the assertion was read from."""
    evidence: list[str]
    """Component ids first, then the subcomponent the text came from."""
    step: int
    """The round (retrieval step) that introduced the assertion."""


class Message(TypedDict):
    """A typed message between agents (seed 004, §4.3): assert, inform, reject or challenge."""

    kind: MessageKind
    sender: str
    receiver: str
    step: int
    assertion: str | None
    """Id of the assertion the message is about, if any."""
    content: str


class LogEntry(TypedDict):
    """One entry of the persistent log: an agent's knowledge set after a round."""

    agent: str
    step: int
    assertions: list[str]


class ReAgentStep(DecisionRecord):
    """One trace record: which node decided what, how, and why."""


class Rollback(TypedDict):
    """The supervisor's request for a global backtrack to the end of round `to_step`."""

    to_step: int
    conflict_set: list[str]
    """The minimal conflicting set Ψ (assertion ids)."""
    reject: list[str]
    """Evidence units to exclude after the fork (the weaker assertions' sentences/rows)."""
    requery: list[int]
    """Sub-questions to query again after the fork."""


def merge_sets(
    left: dict[str, list[Assertion]] | None, right: dict[str, list[Assertion]] | None
) -> dict[str, list[Assertion]]:
    """Replace the knowledge set of each agent named in `right`; others are kept.

    Knowledge is non-monotonic: a node that retracts an assertion writes the agent's whole
    new set, so replacing per agent (not appending) is the update rule.
    """
    return {**(left or {}), **(right or {})}


def merge_lists(
    left: dict[str, list[Any]] | None, right: dict[str, list[Any]] | None
) -> dict[str, list[Any]]:
    """Replace the list under each key named in `right` (per-sub-question evidence)."""
    return {**(left or {}), **(right or {})}


def union_ids(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Add ids to a set kept as a sorted list (rejected evidence only grows)."""
    return sorted(set(left or []) | set(right or []))


@with_config(FIELD_DOCS)
class ReAgentInputState(TypedDict, total=False):
    """What a caller passes: the question, optionally its own decomposition."""

    question: str
    """The question to find evidence for."""
    subquestions: list[SubQuestion]
    """Optional: your own sub-questions q_1..q_m; without them the decomposer writes them."""


@with_config(FIELD_DOCS)
class ReAgentOutputState(CostOutput, total=False):
    """What a caller gets back: ranking, answer, knowledge, messages, trace and costs."""

    ranking: list[Ranked]
    """The final top-k components (assembler)."""
    answer: str | None
    """The assembled answer, when asked for and consistent (assembler)."""
    outcome: Outcome
    """Whether a consistent knowledge set remained (supervisor)."""
    subquestions: list[SubQuestion]
    """The sub-questions q_1..q_m (input or decomposer; written once)."""
    knowledge: Annotated[dict[str, list[Assertion]], merge_sets]
    """Local knowledge sets Φ_i by agent; the global set Φ is their union (retriever,
    verifier, supervisor)."""
    messages: Annotated[list[Message], operator.add]
    """Typed messages between agents, in order (every agent)."""
    rollback: Rollback | None
    """A global backtrack the supervisor asks for; cleared by the fork (supervisor)."""
    trace: Annotated[list[ReAgentStep], operator.add]
    """What each node decided and how (every node appends, fallbacks included)."""


class ReAgentState(ReAgentOutputState, QuestionState, total=False):
    """The whole checkpointed state of one ReAgent run: its output and its working fields."""

    step: int
    """The current round: 0 after decomposition, +1 per retrieval (retriever)."""
    pending: list[int]
    """Sub-questions the retriever queries next (decomposer, verifier, a rollback fork;
    the retriever clears it)."""
    evidence: Annotated[dict[str, list[Evidence]], merge_lists]
    """Top-M fused evidence per sub-question index (retriever; a re-query replaces it)."""
    rejected: Annotated[list[str], union_ids]
    """Evidence units no assertion may be read from again (verifier, supervisor)."""
    log: Annotated[list[LogEntry], operator.add]
    """Persistent log: each agent's knowledge set after every round it changed."""
    conflicts: Annotated[list[list[str]], operator.add]
    """Pairs of assertion ids held by different agents that contradict (verifier)."""
    local_backtracks: Annotated[dict[str, list[int]], merge_lists]
    """Steps at which each agent backtracked locally (verifier)."""


class ReAgentContext(RunSettings):
    """Run settings of ReAgent: the shared RunSettings plus retrieval and backtracking knobs.

    `max_subqueries` caps the sub-questions and `max_steps` the rounds.
    """

    max_subqueries: int = Field(
        3,
        ge=1,
        le=10,
        description="Sub-questions of the decomposition; 3 is the trade-off the seed's "
        "Figure 4 found (gains flatten past it while cost grows).",
    )

    evidence_m: int = Field(
        20, ge=1, le=100, description="Top-M fused evidence components kept per sub-question."
    )
    assertions_per_agent: int = Field(
        2, ge=1, le=5, description="Assertions a retriever agent reads from its top evidence."
    )
    backtrack_depth: int = Field(
        2,
        ge=0,
        le=10,
        description="Local backtracking depth: rounds an agent may revert (and re-query) its "
        "sub-question; 0 turns local backtracking off.",
    )
    max_global_backtracks: int = Field(
        2, ge=0, le=10, description="Budget: supervisor rollbacks (checkpoint forks) per run."
    )
    global_backtracking: bool = Field(
        True, description="Let the supervisor roll every agent back on a cross-agent conflict."
    )
    no_backtracking: bool = Field(
        False, description="Ablation: no local or global backtracking (retractions only)."
    )
    min_coverage: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Offline verifier: share of an assertion's content terms its evidence "
        "must contain to hold. Higher rejects more assertions and backtracks more.",
    )
