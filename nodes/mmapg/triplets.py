"""The seed's triplet text KB as a run-time option: candidates rescored by their best triplet.

Seed 003 (§3.2, eqs. 1–2) builds its text KB from relational triplets an LLM extracts
from every source, so all text entries share one granularity. `fif build --triplets` does
that at build time (corpus_builder.triplet_kb; MMAPG then searches it). For an index built
without it, `MMAPGContext.triplets` with a chat model asks the model for the triplets of a
Retrieval node's text candidates only, embeds them, and rescores each candidate by its
best triplet before the radius cut: a per-question bill instead of a per-corpus one, and
only candidates the sentence search already found can move. Offline (and by default) the
subcomponent layer stands in: sentences and table rows are the fine-grained text entries a
triplet would be.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nodes.core.prompts import as_data
from nodes.core.reasoning import describe
from nodes.mmapg.prompts import TRIPLETS_SYSTEM, TRIPLETS_USER
from nodes.mmapg.schemas import TripletsReply
from state.mmapg_state import Evidence
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

MAX_TRIPLETS = 8
"""Triplets asked for per candidate."""


def triplets_of(
    caller: StructuredCaller, index: CorpusIndex, candidates: Sequence[Evidence], meter: CostMeter
) -> dict[int, list[str]]:
    """Ask the model for the triplets of numbered candidates (one call for all of them)."""
    listing = as_data(
        "\n".join(
            f"{i}: {describe(index.graph, c['component_id'])}" for i, c in enumerate(candidates)
        ),
        "numbered passages",
    )
    reply = caller.call(
        TripletsReply,
        TRIPLETS_SYSTEM.format(max_triplets=MAX_TRIPLETS),
        TRIPLETS_USER.format(passages=listing),
        meter,
    )
    return {
        p.index: p.triplets[:MAX_TRIPLETS]
        for p in reply.passages
        if p.index < len(candidates) and p.triplets
    }


def rescored(
    index: CorpusIndex,
    query: str,
    candidates: Sequence[Evidence],
    triplets: dict[int, list[str]],
    meter: CostMeter,
) -> list[Evidence]:
    """Return text candidates scored by their best triplet's cosine to the query.

    A candidate without triplets keeps its subcomponent score; image candidates are untouched.
    """
    texts = [t for i in sorted(triplets) for t in triplets[i]]
    if not texts:
        return list(candidates)
    with meter.timed("embedding"):
        vectors = np.stack(index.embed_queries([query, *texts]))
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = vectors[1:] @ vectors[0]
    result: list[Evidence] = []
    position = 0
    for i, candidate in enumerate(candidates):
        found = triplets.get(i, [])
        if found and candidate["pool"] != "image":
            best = float(sims[position : position + len(found)].max())
            result.append({**candidate, "score": round(best, 6), "note": "best triplet"})
        else:
            result.append(candidate)
        position += len(found)
    return result
