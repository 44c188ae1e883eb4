"""Examine retrieved candidates: keep those that hold what the instruction asks for.

Seed 003 (§3.4, eqs. 12–14) asks a model to read each text candidate (and a VLM each image)
and extract what is relevant. The offline twin keeps a candidate when it covers at least
one key phrase: half or more of the phrase's content words (crude stems) occur in the
candidate's document title, its text and the sentence, row or region that matched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.core.lexical import coverage
from state.mmapg_state import Evidence
from tools.layered_graph import LayeredGraph

PHRASE_COVERAGE = 0.5
"""Share of a key phrase's words a candidate must contain to cover it (FiF's min_coverage)."""
SNIPPET_CHARS = 300
"""How much of a kept candidate an offline node content quotes."""


@dataclass(frozen=True)
class Examined:
    """The examination's outcome: kept and rejected candidates, and what was found."""

    kept: list[Evidence]
    rejected: list[Evidence]
    summary: str


def candidate_text(graph: LayeredGraph, candidate: Evidence) -> str:
    """Return what a candidate offers to a reader: title, component text, matched part."""
    view = graph.node(candidate["component_id"])
    parts = [graph.title(view.doc_id), view.text]
    if candidate["evidence"] != candidate["component_id"] and candidate["evidence"] in graph:
        parts.append(graph.node(candidate["evidence"]).text)
    return "\n".join(part for part in parts if part)


def evidence_snippet(graph: LayeredGraph, candidate: Evidence) -> str:
    """Return the matched sentence, row or region of a candidate (its component text if none)."""
    node_id = candidate["evidence"] if candidate["evidence"] in graph else candidate["component_id"]
    text = " ".join(graph.node(node_id).text.split()) or graph.node(node_id).kind
    return f"{graph.title(candidate['doc_id'])}: {text[:SNIPPET_CHARS]}"


def examine_offline(
    graph: LayeredGraph, candidates: Sequence[Evidence], phrases: Sequence[str]
) -> Examined:
    """Keep the candidates that cover a key phrase; with no phrases, keep them all."""
    kept: list[Evidence] = []
    rejected: list[Evidence] = []
    for candidate in candidates:
        text = candidate_text(graph, candidate)
        covered = [p for p in phrases if coverage(p, text) >= PHRASE_COVERAGE]
        if covered or not phrases:
            kept.append({**candidate, "note": "covers: " + "; ".join(covered)})
        else:
            rejected.append({**candidate, "note": "covers no key phrase"})
    summary = " | ".join(evidence_snippet(graph, c) for c in kept[:2])
    return Examined(kept, rejected, summary)


def apply_verdicts(
    candidates: Sequence[Evidence], notes: dict[int, str]
) -> tuple[list[Evidence], list[Evidence]]:
    """Split candidates by a model's verdicts: index → what it found (kept), others rejected."""
    kept: list[Evidence] = [{**c, "note": notes[i]} for i, c in enumerate(candidates) if i in notes]
    rejected: list[Evidence] = [
        {**c, "note": "judged irrelevant"} for i, c in enumerate(candidates) if i not in notes
    ]
    return kept, rejected
