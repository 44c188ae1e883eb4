"""Where a run's answer comes from: the ranked components that hold it, or "not found".

The page cites the components (and their pages) whose text holds the answer's numbers,
names and most of its words (the answerer's own support check, `nodes.core.guards`), and marks
them in the result list. An answer is reported as not found in the corpus when no ranked
component holds it, or when the run judged its steps and none of them succeeded: the
reader then picked a span from evidence the run itself found wanting, a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nodes.core.guards import unsupported_answer
from tools.component_terms import full_text
from tools.layered_graph import LayeredGraph

MAX_CITED = 3


def grounded(
    graph: LayeredGraph,
    answer: str | None,
    cards: Sequence[Mapping[str, Any]],
    history: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """Return the grounding of an answer over a run's result cards and step records.

    `status` is "none" (no answer was asked for or given), "supported" (with `cited`: the
    component ids, printed pages and page boxes holding it, best rank first) or "not_found"
    (with the `reason`; the page shows the reader's guess only on request).
    """
    if not answer or not answer.strip():
        return {"status": "none", "cited": []}
    judged = [r for r in history if isinstance(r, Mapping) and "success" in r]
    if judged and not any(r.get("success") or r.get("answerable") for r in judged):
        reason = f"none of the run's {len(judged)} judged steps found supporting evidence"
        return {"status": "not_found", "cited": [], "reason": reason}
    cited = [
        _citation(card)
        for card in cards
        if str(card["component_id"]) in graph
        and unsupported_answer(answer, [full_text(graph, str(card["component_id"]))]) is None
    ][:MAX_CITED]
    if not cited:
        reason = "no ranked component holds the answer's names and numbers"
        return {"status": "not_found", "cited": [], "reason": reason}
    return {"status": "supported", "cited": cited}


def _citation(card: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "component_id": card["component_id"],
        "rank": card.get("rank"),
        "title": card.get("title"),
        "pages": card.get("pages"),
        "pdf_page": card.get("pdf_page"),
        "region": card.get("region"),
        "region_label": card.get("region_label"),
    }
