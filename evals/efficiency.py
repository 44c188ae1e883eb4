"""Efficiency of a system over its result lines: latency percentiles and mean costs per query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from evals.results_log import is_complete

MEAN_COST_KEYS = (
    "llm_ms",
    "vector_ms",
    "sparse_ms",
    "embedding_ms",
    "llm_calls",
    "input_tokens",
    "output_tokens",
)
EFFICIENCY_KEYS = ("latency_p50_ms", "latency_p95_ms", *MEAN_COST_KEYS, "usd")
"""Latency percentiles, then per-query means of the cost fields (usd is the run's total)."""


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-th percentile (0-100) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def efficiency(lines: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Return latency p50/p95 and mean costs over completed result lines."""
    done = [line for line in lines if is_complete(line)]
    latencies = [float(line.get("latency_ms", 0.0)) for line in done]
    costs = [line.get("cost") or {} for line in done]
    out = {"latency_p50_ms": percentile(latencies, 50), "latency_p95_ms": percentile(latencies, 95)}
    for key in MEAN_COST_KEYS:
        out[key] = sum(float(c.get(key, 0.0)) for c in costs) / len(costs) if costs else 0.0
    out["usd"] = sum(float(c.get("usd", 0.0)) for c in costs)
    return out
