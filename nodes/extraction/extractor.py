"""The extraction agent: fetch sections for the current shopping item and record findings.

Each call starts fresh (seed 002): it sees the question, the current item and the
section index, never an earlier extraction's text. The item's hybrid hits, mapped onto
the section tree, rank the sections (`nodes.extraction.sections`); the chat model picks
1-3 of them (offline: the best ranked), `fetch_section` returns their page-tagged text,
and the model (offline: the rules of `nodes.extraction.findings`) writes findings. With
no finding, a failed search with its reason and the sections tried is recorded instead.
The first extraction also fixes the documents the loop works in.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.reasoning import Decided, decide_within, fallbacks_of
from nodes.extraction.findings import rule_findings
from nodes.extraction.guards import choice_refusal, findings_refusal
from nodes.extraction.llm_steps import llm_choose, llm_extract
from nodes.extraction.prompts import CHOOSE_VERSION, EXTRACT_VERSION
from nodes.extraction.rules import current_item, extractions, llm_budget_left
from nodes.extraction.sections import SectionSearch, search_sections
from state.extraction_state import (
    ExtractionContext,
    ExtractionState,
    ExtractionStep,
    FailedSearch,
    Finding,
    Searched,
)
from state.settings import llm_enabled
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.section_text import FetchedSection, fetch_section
from tools.section_tree import section_tree

OFFLINE_SECTION_CHARS = 200_000
"""Offline rules read a fetched section whole (up to MAX_BLOCKS components); a model sees
`section_chars` of it."""


class ExtractorUpdate(DecisionUpdate, total=False):
    """The keys the extractor writes."""

    documents: list[str]
    findings: list[Finding]
    failed_searches: list[FailedSearch]
    searched: list[Searched]
    trace: list[ExtractionStep]


def searched_of(
    search: SectionSearch, fetched: Sequence[FetchedSection], iteration: int
) -> list[Searched]:
    """Return what an extraction looked at: its hits, then the fetched blocks, once each."""
    seen: dict[str, Searched] = {}
    for hit in search.hits:
        seen.setdefault(
            hit.node_id,
            {
                "component_id": hit.node_id,
                "doc_id": hit.doc_id,
                "type": hit.kind,
                "iteration": iteration,
            },
        )
    for section in fetched:
        for block in section.blocks:
            entry: Searched = {
                "component_id": block.component_id,
                "doc_id": section.doc_id,
                "type": block.kind,
                "iteration": iteration,
            }
            seen.setdefault(block.component_id, entry)
    return list(seen.values())


def extraction_update(
    state: ExtractionState,
    search: SectionSearch,
    fetched: Sequence[FetchedSection],
    decisions: tuple[Decided, Decided],
    meter: CostMeter,
) -> ExtractorUpdate:
    """Build the extractor's update: findings or a failed search, what it saw, its record."""
    iteration = extractions(state) + 1
    findings, fail = decisions[1].value
    tried = [f"{s.section_id} {s.heading[:80]}" for s in fetched]
    record: ExtractionStep = {
        "node": "extractor",
        "step": iteration,
        "decided_by": "/".join(dict.fromkeys(d.decided_by for d in decisions)),
        "reason": f"{len(findings)} findings from {len(fetched)} sections"
        + "".join(f"; {d.note}" for d in decisions if d.note),
        "query": search.item,
        "sections": tried,
        "findings": len(findings),
        "prompt_version": f"{CHOOSE_VERSION}+{EXTRACT_VERSION}" if meter.llm_calls else None,
    }
    update: ExtractorUpdate = {
        "findings": findings,
        "searched": searched_of(search, fetched, iteration),
        "trace": [record],
        "cost": meter.as_dict(),
        **fallbacks_of("extractor", *decisions),
    }
    if not findings:
        reason = fail or "no row or sentence of the fetched sections states it"
        update["failed_searches"] = [
            {"item": search.item, "reason": reason, "sections_tried": tried, "iteration": iteration}
        ]
    if not state.get("documents"):
        update["documents"] = search.documents
    return update


def extractor(state: ExtractionState, runtime: Runtime[ExtractionContext]) -> ExtractorUpdate:
    """Fetch sections for the current shopping item and extract findings from them."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    question, item = state["question"], current_item(state)
    search = search_sections(index, item, state.get("documents") or None, context, meter)
    chose = decide_within(
        llm_budget_left(state, context),
        context,
        meter,
        lambda caller: llm_choose(caller, meter, search, question, context.section_shortlist),
        lambda: [c.section_id for c in search.candidates],
        [lambda sections: choice_refusal(sections, len(search.candidates))],
    )
    chars = context.section_chars if llm_enabled(context) else OFFLINE_SECTION_CHARS
    fetched = [
        fetch_section(index.graph, section_tree(index.graph, doc), section, chars)
        for section in chose.value[: context.sections_per_item]
        for doc in [section_doc(search, section)]
    ]
    iteration = extractions(state) + 1
    spent = meter.input_tokens + meter.output_tokens
    read = decide_within(
        llm_budget_left(state, context, spent) and bool(fetched),
        context,
        meter,
        lambda caller: llm_extract(caller, meter, fetched, question, item, iteration),
        lambda: (
            rule_findings(item, question, fetched, iteration, context.findings_per_item),
            None,
        ),
        [lambda found: findings_refusal(found[0], fetched)],
    )
    return extraction_update(state, search, fetched, (chose, read), meter)


def section_doc(search: SectionSearch, section: str) -> str:
    """Return the document of a ranked section."""
    return next(c.doc_id for c in search.candidates if c.section_id == section)
