"""The LILaC graph's state (question, modality-labelled subqueries, edge beam, ranking) and context.

LILaC (seed 001, §4.2) decomposes the question into component-targeting subqueries with a
modality label each, seeds a beam with the components nearest to the question, and keeps
the b best edges of the layered component graph under late-interaction scoring. Like
`FiFState`, everything here is plain JSON-like data so checkpoints stay pickle-free.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, CostOutput, QuestionState, Ranked
from state.settings import RunSettings

Modality = Literal["text", "table", "image"]
EdgeKind = Literal["intra", "inter", "dummy", "seed"]
SeedGranularity = Literal["component", "subcomponent", "both"]
ModalitySelection = Literal["joint", "separate"]


class LilacSubquery(TypedDict):
    """One subquery q_j with the modality m_j it targets."""

    index: int
    text: str
    modality: Modality


class ScoredEdge(TypedDict):
    """A retrieval unit of the beam: an edge (two components) or a single component.

    `components` holds one id for a dummy edge (C, ε), a one-sided match or a seed
    before any expansion, two ids otherwise. `evidence` names, per subquery, the
    subcomponent whose similarity counted in the score.
    """

    components: list[str]
    kind: EdgeKind
    score: float
    one_sided: bool
    evidence: list[str]


class LilacStep(TypedDict):
    """One trace record: which node decided what, how, and why."""

    node: str
    decided_by: str
    reason: str
    prompt_version: str | None
    detail: dict[str, Any]


@with_config(FIELD_DOCS)
class LilacOutputState(CostOutput, total=False):
    """What a caller gets back: ranking, plan, final beam, trace and costs."""

    ranking: list[Ranked]
    """The final top-k components (traverser)."""
    subqueries: list[LilacSubquery]
    """Modality-labelled subqueries Q_sub (decomposer; written once)."""
    beam: list[ScoredEdge]
    """The top-b edges after the last iteration, best first (traverser)."""
    trace: Annotated[list[LilacStep], operator.add]
    """What each node decided and how (every node appends, fallbacks included)."""


class LilacState(LilacOutputState, QuestionState, total=False):
    """The whole checkpointed state of one LILaC run: its output and the question."""


class LilacContext(RunSettings):
    """Run settings of LILaC: the shared RunSettings plus the beam search's own knobs.

    Defaults follow the paper's Appendix E.2 (b = 30, n_i = 1).
    """

    beam_width: int = Field(30, ge=1, le=500, description="Beam width b: edges kept per iteration.")
    iterations: int = Field(
        1, ge=0, le=5, description="Traversal iterations n_i; 0 ranks the seed components only."
    )
    seed_granularity: SeedGranularity = Field(
        "both",
        description=(
            "How the seed set V_0 is scored against Q: component vectors, the best "
            "subcomponent of each component, or the max of both."
        ),
    )
    follow_backlinks: bool = Field(
        False,
        description=(
            "Also expand a component to the components linking to its document (links_to "
            "taken as undirected); off follows links forward only, as the authors' code does."
        ),
    )
    max_edges_per_node: int = Field(
        2000, ge=1, le=100_000, description="Cap on the edges one beam component expands to."
    )
    modality_hint: bool = Field(
        False,
        description=(
            "Prefix each subquery with its modality ('table: ...') before embedding; our text "
            "embedders take no instruction, so this is off unless it measurably helps."
        ),
    )
    modality_selection: ModalitySelection = Field(
        "joint",
        description=(
            "LLM backends: label modalities in the decomposition call (joint) or with one "
            "modality-selection call per subquery, as the paper does (separate)."
        ),
    )
