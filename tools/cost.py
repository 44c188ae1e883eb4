"""The cost meter: LLM calls, tokens, dollars, and the wall time split by what it waited on.

`embedding_ms` is the time the run waited for query vectors: batches the helper process
embedded ahead (tools.query_vectors) count only for what was still left when they were
needed. `sparse_ms` is BM25 search in the sparse layer index (`vector_ms` the dense one).
`work_ms` is the run's own working time: the wall time spent inside its graph
nodes, added once per node by the graph (not by the nodes). The time budget counts it
instead of the clock, so a run resumed or forked from a checkpoint keeps the time it had
left.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Literal

TimeKind = Literal["llm", "vector", "sparse", "embedding"]

# USD per million tokens (input, output); override with Context.price_table.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-5-nano": (0.05, 0.4),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
}


@dataclass
class CostMeter:
    """A mutable tally for one node call; nodes return `as_dict()` as their cost delta."""

    llm_calls: int = 0
    """Calls the model answered (a reply came back, usable or not)."""
    llm_failed_attempts: int = 0
    """Attempts that got no reply (timeout, refused connection, rate limit, server error);
    with `llm_calls` they count against the run's call budget."""
    llm_unreachable: int = 0
    """Decisions that fell back because the model's server could not be reached."""
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    llm_ms: float = 0.0
    vector_ms: float = 0.0
    sparse_ms: float = 0.0
    embedding_ms: float = 0.0
    work_ms: float = 0.0
    fallbacks: int = 0
    llm_retries: int = 0
    """Attempts asked again after a timeout, a rate limit or an unusable reply."""
    rate_limited: int = 0
    """Attempts the server refused with a rate limit (HTTP 429)."""

    @contextmanager
    def timed(self, kind: TimeKind) -> Iterator[None]:
        """Add the wall time of the block to the given kind."""
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - started) * 1000.0
            setattr(self, f"{kind}_ms", getattr(self, f"{kind}_ms") + elapsed)

    def add_llm_usage(
        self,
        model: str,
        input_tokens: int,
        output_tokens: int,
        prices: Mapping[str, tuple[float, float]] | None = None,
    ) -> None:
        """Count one LLM call with its token usage and estimated price."""
        self.llm_calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        price_in, price_out = price_of(model, prices)
        self.usd += (input_tokens * price_in + output_tokens * price_out) / 1e6

    def as_dict(self) -> dict[str, float]:
        """Return the tally as plain numbers (for state and traces)."""
        values = {
            field.name: getattr(self, field.name) for field in fields(self)
        }  # not asdict's copies
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in values.items()}


def price_of(
    model: str, prices: Mapping[str, tuple[float, float]] | None = None
) -> tuple[float, float]:
    """Return (input, output) USD per million tokens of a model; unknown and local models are 0."""
    table = {**DEFAULT_PRICES, **(prices or {})}
    name = model.rsplit("/", 1)[-1]
    best = max((key for key in table if name.startswith(key)), key=len, default=None)
    return table[best] if best else (0.0, 0.0)
