"""Run settings of every graph (the LangGraph context_schema): models, k, budgets, ablations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Backend = Literal["offline", "openai", "local"]


class Context(BaseModel):
    """Everything a node may read about how to run; nodes read nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index_dir: str = Field(".fif/index", description="Folder of the index built by `fif build`.")
    chroma_url: str | None = Field(None, description="Chroma server URL; None = embedded store.")
    backend: Backend = Field("offline", description="Who makes the reasoning decisions.")
    chat_model: str = Field("gpt-5-mini", description="Model name for the openai backend.")
    base_url: str | None = Field(None, description="OpenAI-compatible server URL (openai backend).")
    api_key_env: str = Field("OPENAI_API_KEY", description="Env var holding the API key.")
    local_model_path: str | None = Field(
        None, description="GGUF file for the local backend; None = packaged SmolLM2-135M."
    )
    vision: bool = Field(False, description="Send images to the chat model as image blocks.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    llm_timeout_s: float = Field(60.0, gt=0, le=600, description="Timeout of one LLM call.")
    llm_retries: int = Field(2, ge=0, le=6, description="Retries after a failed LLM call.")
    llm_backoff_s: float = Field(1.0, ge=0, le=60, description="First retry delay (doubles).")
    price_table: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="USD per million (input, output) tokens, by model."
    )

    top_k: int = Field(10, ge=1, le=100, description="Components in the final ranking.")
    shortlist_k: int = Field(30, ge=1, le=200, description="Vector shortlist before LLM selection.")
    docs_per_hop: int = Field(20, ge=1, le=50, description="Documents kept by a document stage.")
    components_per_hop: int = Field(20, ge=1, le=50, description="Components kept per traversal.")

    max_steps: int = Field(8, ge=1, le=50, description="Budget: traversals per run.")
    max_llm_calls: int = Field(30, ge=0, le=500, description="Budget: LLM calls per run.")
    max_tokens: int = Field(200_000, ge=0, description="Budget: LLM tokens per run.")
    max_seconds: float = Field(180.0, gt=0, description="Budget: wall time per run.")

    backtrack_after_failures: int = Field(
        2, ge=1, le=10, description="Consecutive failures that trigger backtracking."
    )
    replan_after_failed_anchors: int = Field(
        2, ge=1, le=10, description="Distinct failed anchors that trigger a replan."
    )
    max_subqueries: int = Field(5, ge=1, le=10, description="Subqueries in the initial plan.")
    success_score: float = Field(
        0.45, ge=-1.0, le=1.0, description="Offline evaluator: best score counted as success."
    )

    min_coverage: float = Field(
        0.5, ge=0.0, le=1.0, description="Offline evaluator: share of the subquery's words the "
        "top components must contain to count as a success."
    )
    link_follow_score: float = Field(
        0.3,
        ge=-1.0,
        le=1.0,
        description="Offline evaluator: a linked document this relevant "
        "to the question means the hop is not finished.",
    )

    no_backtracking: bool = Field(False, description="Ablation: never re-anchor.")
    no_llm_traversal: bool = Field(False, description="Ablation: traverser never uses the LLM.")
    no_global_hop: bool = Field(False, description="Ablation: after the first hop, only neighbors.")
    fixed_granularity: bool = Field(False, description="Ablation: never change granularity.")
    no_planner: bool = Field(False, description="Ablation: no decomposition and no replanning.")

    answer: bool = Field(
        False, description="Write a short grounded answer from the top components."
    )

    @classmethod
    def from_env(cls, overrides: Mapping[str, Any] | None = None, prefix: str = "FIF_") -> Context:
        """Build a Context from FIF_* environment variables, then explicit overrides (the CLI)."""
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = os.environ.get(f"{prefix}{name.upper()}")
            if raw is not None:
                values[name] = raw
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        return cls.model_validate(values)


def llm_enabled(context: Context) -> bool:
    """Tell whether reasoning decisions go to a chat model."""
    return context.backend != "offline"
