"""The loop's ranker: components its findings came from first, then the rest it searched.

The answer's cited findings come first, then every other finding in the order found
(findings of one extraction best first), then the components the loop looked at (each
extraction's search hits, then the blocks of the sections it fetched), once each, capped
at top_k. The evaluation derives the page ranking from this component ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from langgraph.runtime import Runtime

from nodes.extraction.rules import extractions, last_verdict, stop_after_synthesis
from nodes.extraction.synthesis import source_of
from state.extraction_state import (
    ExtractionContext,
    ExtractionState,
    ExtractionStep,
    Finding,
    Searched,
)
from state.fif_state import Ranked


class RankerUpdate(TypedDict, total=False):
    """The keys the ranker writes."""

    ranking: list[Ranked]
    trace: list[ExtractionStep]


def ranked_components(
    findings: Sequence[Finding], cited: Sequence[str], searched: Sequence[Searched], k: int
) -> list[Ranked]:
    """Return the top-k: cited findings' components, other findings', then searched ones."""
    first = [f for f in findings if source_of(f) in cited]
    rest = [f for f in findings if source_of(f) not in cited]
    entries = [(f["component_id"], f["doc_id"], "") for f in [*first, *rest]]
    entries += [(s["component_id"], s["doc_id"], s["type"]) for s in searched]
    kinds = {s["component_id"]: s["type"] for s in searched}
    ranking: list[Ranked] = []
    seen: set[str] = set()
    for component, doc, kind in entries:
        if component in seen:
            continue
        seen.add(component)
        score = round(1.0 / (1 + len(ranking)), 6)
        ranking.append(
            {
                "component_id": component,
                "doc_id": doc,
                "type": kind or kinds.get(component, ""),
                "score": score,
            }
        )
        if len(ranking) >= k:
            break
    return ranking


def ranker(state: ExtractionState, runtime: Runtime[ExtractionContext]) -> RankerUpdate:
    """Rank what the loop found and looked at; record why the loop stopped."""
    context = runtime.context
    verdict = last_verdict(state)
    cited = verdict["sources"] if verdict and verdict["status"] == "answer" else []
    findings = state.get("findings", [])
    ranking = ranked_components(findings, cited, state.get("searched", []), context.top_k)
    from_findings = len(
        {f["component_id"] for f in findings} & {r["component_id"] for r in ranking}
    )
    record: ExtractionStep = {
        "node": "ranker",
        "step": extractions(state),
        "decided_by": "findings-first",
        "reason": (
            f"stopped: {stop_after_synthesis(state, context)}; {len(ranking)} ranked, "
            f"{from_findings} from findings; cited {', '.join(cited) or 'nothing'}"
        ),
    }
    return {"ranking": ranking, "trace": [record]}
