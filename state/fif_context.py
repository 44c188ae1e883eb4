"""FiF's own run settings: RunSettings plus its hop sizes, rule thresholds, tuning and ablations."""

from __future__ import annotations

from pydantic import Field

from state.settings import RunSettings
from state.tuning import FiFTuning


class FiFContext(RunSettings):
    """FiF's context_schema: the shared settings plus what only FiF's rules and nodes read."""

    docs_per_hop: int = Field(20, ge=1, le=50, description="Documents kept by a document stage.")
    components_per_hop: int = Field(20, ge=1, le=50, description="Components kept per traversal.")

    backtrack_after_failures: int = Field(
        2, ge=1, le=10, description="Consecutive failures that trigger backtracking."
    )
    replan_after_failed_anchors: int = Field(
        2, ge=1, le=10, description="Distinct failed anchors that trigger a replan."
    )
    tuning: FiFTuning = Field(
        default_factory=FiFTuning,
        description="FiF's tuned constants (state.tuning): what each trades, how it was chosen.",
    )

    no_backtracking: bool = Field(False, description="Ablation: never re-anchor.")
    no_llm_traversal: bool = Field(False, description="Ablation: traverser never uses the LLM.")
    no_global_hop: bool = Field(False, description="Ablation: after the first hop, only neighbors.")
    fixed_granularity: bool = Field(False, description="Ablation: never change granularity.")
    no_planner: bool = Field(False, description="Ablation: no decomposition and no replanning.")
