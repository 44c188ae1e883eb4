"""The loop's ranker: components its findings came from first, then the rest it searched.

Extraction by extraction (the question's own first): the components of that
extraction's findings, then the rest it looked at (its search hits, then the blocks of
the sections it fetched), once each, capped at top_k. Ranking all findings of every
extraction before anything searched was measured worse: offline, later shopping items
are the question's uncovered words, and their findings pushed the question's own search
hits out of the top 10 (figures in docs/tuning-log.md). The
evaluation derives the page ranking from this component ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from langgraph.runtime import Runtime

from nodes.extraction.rules import extractions, last_verdict, stop_after_synthesis
from state.core import Ranked, ranked_entry
from state.extraction_state import (
    ExtractionContext,
    ExtractionState,
    ExtractionStep,
    Finding,
    Searched,
)
from tools.corpus_index import open_index
from tools.page_fusion import page_first_ranked
from tools.rank_fusion import fused_order

SEARCH_WEIGHT = 2
"""How many times the search order counts against the extractor's order of its findings.
The offline rules score rows and sentences by BM25 among the fetched units only, the
search saw the whole document; counting the search twice put the search's best finding
component first more often (docs/tuning-log.md: chosen on one set of filings, so an
estimate, not a tuned constant)."""


class RankerUpdate(TypedDict, total=False):
    """The keys the ranker writes."""

    ranking: list[Ranked]
    trace: list[ExtractionStep]


def iteration_order(findings: Sequence[Finding], searched: Sequence[Searched]) -> list[str]:
    """Return one extraction's components: its findings', then the rest it looked at.

    The findings' components are ordered by reciprocal rank fusion of the extractor's own
    order (best match first) and the order the search met them (counted SEARCH_WEIGHT
    times), so a finding that the search also ranked high comes first.
    """
    found = list(dict.fromkeys(f["component_id"] for f in findings))
    seen = list(dict.fromkeys(s["component_id"] for s in searched))
    wanted = set(found)
    first = [c for c, _ in fused_order([found, *[seen] * SEARCH_WEIGHT]) if c in wanted]
    return list(dict.fromkeys([*first, *seen]))


def ranked_components(
    findings: Sequence[Finding], searched: Sequence[Searched], k: int
) -> list[Ranked]:
    """Return the top-k, extraction by extraction: its findings' components, then the rest."""
    iterations = sorted({s["iteration"] for s in searched} | {f["iteration"] for f in findings})
    order: list[str] = []
    for t in iterations:
        order += iteration_order(
            [f for f in findings if f["iteration"] == t],
            [s for s in searched if s["iteration"] == t],
        )
    docs = {f["component_id"]: (f["doc_id"], "") for f in findings}
    docs.update({s["component_id"]: (s["doc_id"], s["type"]) for s in searched})
    ranking: list[Ranked] = []
    for component in dict.fromkeys(order):
        doc, kind = docs[component]
        score = round(1.0 / (1 + len(ranking)), 6)
        ranking.append(ranked_entry(component, doc, kind, score))
        if len(ranking) >= k:
            break
    return ranking


def ranker(state: ExtractionState, runtime: Runtime[ExtractionContext]) -> RankerUpdate:
    """Rank what the loop found and looked at; record why the loop stopped."""
    context = runtime.context
    verdict = last_verdict(state)
    cited = verdict["sources"] if verdict and verdict["status"] == "answer" else []
    findings = state.get("findings", [])
    ranking = ranked_components(findings, state.get("searched", []), context.top_k)
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    ranking = page_first_ranked(index, state["question"], ranking, context)
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
