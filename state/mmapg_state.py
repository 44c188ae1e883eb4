"""The MMAPG graph's state: the adaptive planning graph grown node by node, and its context.

MMAPG (seed 003, §3.3) keeps a planning graph G = (V, E) whose nodes are Question,
Answer, Retrieval and Stop steps and whose edges point from parent nodes to the node
built on them. The graph only grows: failed Retrieval nodes ("no result") stay, and new
nodes may hang off any node. Everything is plain JSON-like data so checkpoints stay
pickle-free and readable in Studio.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, DecidedOutput, DecisionRecord, QuestionState, Ranked
from state.settings import RunSettings

NodeType = Literal["question", "answer", "retrieval", "stop"]
NodeStatus = Literal["open", "found", "no_result", "answered", "stopped"]
ImageMode = Literal["none", "targeted", "descriptive"]
Pool = Literal["text", "target", "image"]
"""Where a candidate came from: the text KB, a looked-up identifier's document, the image KB."""
SearchMode = Literal["dense", "sparse", "hybrid"]


class Evidence(TypedDict):
    """A component a Retrieval node retrieved, with its score and the examination's note."""

    component_id: str
    doc_id: str
    kind: str
    score: float
    pool: Pool
    evidence: str
    """The subcomponent (sentence, row, region) or component whose score counted."""
    note: str
    """What the examination found in it, or why it was not kept."""


class NodeAction(TypedDict):
    """One new node the planner decided on: its id, type, parents and instruction."""

    id: int
    type: NodeType
    parents: list[int]
    instruction: str
    decided_by: str
    reason: str


class PlanNode(TypedDict):
    """One node of the planning graph, as built by the planner or a module it called."""

    id: int
    type: NodeType
    parents: list[int]
    """Ids of the nodes this one is built on (the graph's edges point parent → node)."""
    instruction: str
    content: str
    """The node's text: a question, what a retrieval found ("no result" if nothing), an answer."""
    status: NodeStatus
    found: list[Evidence]
    """Retrieval nodes: the candidates kept by the examination, best first."""
    others: list[Evidence]
    """Retrieval nodes: candidates retrieved but not kept (rejected, or outside the radius)."""
    detail: dict[str, Any]
    """How the node was made: instruction split, key phrases, image mode, radii, pool sizes."""
    decided_by: str


class OverallPlan(TypedDict):
    """The overall plan P_plan written before the graph grows: key sub-questions and a guide."""

    sub_questions: list[str]
    text: str
    decided_by: str


class MMAPGStep(DecisionRecord):
    """One trace record: which node decided what, how, and why."""


def merge_nodes(left: list[PlanNode] | None, right: list[PlanNode] | None) -> list[PlanNode]:
    """Add new planning-graph nodes, ordered by id; a node is never removed or replaced.

    Parallel Retrieval branches return their nodes in any order; the planner gave each
    its id beforehand, so sorting by id keeps the graph's growth order.

    Raises:
        ValueError: If a node id is added twice (two branches wrote the same node).
    """
    merged = {node["id"]: node for node in left or []}
    for node in right or []:
        if node["id"] in merged:
            raise ValueError(f"planning-graph node {node['id']} was written twice")
        merged[node["id"]] = node
    return [merged[key] for key in sorted(merged)]


@with_config(FIELD_DOCS)
class MMAPGOutputState(DecidedOutput, total=False):
    """What a caller gets back: ranking, answer, the planning graph, its drawing, trace, cost."""

    ranking: list[Ranked]
    """The final top-k components (finisher)."""
    answer: str | None
    """The final answer: the last Answer node's content (finisher)."""
    plan: OverallPlan
    """The overall plan (plan_writer; written once)."""
    nodes: Annotated[list[PlanNode], merge_nodes]
    """The planning graph's nodes with their parent edges (plan_writer, planner, retriever,
    answerer, finisher append; nothing is removed, failed retrievals included)."""
    graph_text: str
    """The planning graph drawn as a mermaid flowchart (finisher)."""
    trace: Annotated[list[MMAPGStep], operator.add]
    """What each node decided and how (every node appends, fallbacks included)."""


class MMAPGState(MMAPGOutputState, QuestionState, total=False):
    """The whole checkpointed state of one MMAPG run: its output and its working fields."""

    pending: list[NodeAction]
    """The planner's latest decision: the node(s) to build next (last write wins)."""


class RetrieverInput(TypedDict):
    """What one Retrieval branch receives through `Send`: the question, its action, parents."""

    question: str
    action: NodeAction
    parents: list[PlanNode]
    llm_allowed: bool
    """Whether this branch may call the LLM (the planner checked the run's call budget)."""
    cost: dict[str, float]
    """The run's working time so far (`work_ms`), which bounds this branch's LLM time."""


class MMAPGContext(RunSettings):
    """Run settings of MMAPG: RunSettings plus the planning graph's and retrieval's knobs.

    The radii are cosine distances from the best score of a pool (seed 003, §3.4 retrieves
    within a radius r_t / r_i rather than a fixed top-k; the authors' values are not given).
    Per-modality radii because text-text and text-image similarities have different spreads
    (seed 003, Appendix A.1); the calibrated image scores of `tools.image_scores` are
    compressed towards the text scale's middle, so the image radius is narrower.
    """

    max_iterations: int = Field(
        8, ge=1, le=40, description="Planner steps before the run is stopped (the seed's k)."
    )
    text_radius: float = Field(
        0.12,
        ge=0.0,
        le=2.0,
        description="Text KB radius r_t: keep candidates whose score is within this of the "
        "pool's best score (cosine).",
    )
    image_radius: float = Field(
        0.06, ge=0.0, le=2.0, description="Image KB radius r_i, on the calibrated text scale."
    )
    max_in_radius: int = Field(
        12, ge=1, le=100, description="Cap on the candidates one pool passes to examination."
    )
    fixed_top_k: int | None = Field(
        None,
        ge=1,
        le=100,
        description="Ablation: keep a pool's top k candidates instead of those within the radius.",
    )
    no_modality_split: bool = Field(
        False,
        description="Ablation: no text/image split; the whole instruction searches the text KB.",
    )
    no_examination: bool = Field(
        False,
        description="Ablation (the seed's 'w/o retrieval module'): keep every candidate in the "
        "radius, no key phrases, no examination.",
    )
    single_path: bool = Field(
        False,
        description="Ablation (the seed's 'w/o graph-guided planning'): one node per step, "
        "each built on the previous one, as an iterative retriever would.",
    )
    max_bridges: int = Field(
        2, ge=0, le=5, description="Follow-up Retrieval nodes grown from one found node."
    )
    search_mode: SearchMode = Field(
        "dense", description="How the text KB is searched: dense vectors, BM25 or their hybrid."
    )
    triplet_kb: bool = Field(
        True,
        description="Score text candidates against the index's triplet KB (built by `fif build "
        "--triplets`; the seed's text KB, §3.2) when it has one; False is the seed's 'w/o "
        "triplet conversion' ablation. Without a built KB, sentences and table rows stand in.",
    )
    triplets: bool = Field(
        False,
        description="LLM backends, indices without a built triplet KB: rewrite each text "
        "candidate as relational triplets at run time and score it by its best triplet; "
        "offline, sentences and table rows (the subcomponent layer) stand in for triplets.",
    )
