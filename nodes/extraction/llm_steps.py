"""The loop's three chat-model steps: choose sections, extract findings, synthesize.

Each builds its prompt (evidence first), calls `StructuredCaller` with a validator that
sends impossible replies back for repair (an unknown section id, a page that was not
fetched, a calculation over unknown findings), and converts the reply into the state's
records. A call that still fails raises LLMFailure, and the node runs the offline twin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nodes.core.prompts import as_data
from nodes.extraction.prompts import (
    CHOOSE_SYSTEM,
    CHOOSE_USER,
    EXTRACT_SYSTEM,
    EXTRACT_USER,
    NO_FAILURES,
    NO_FINDINGS,
    SYNTHESIZE_SYSTEM,
    SYNTHESIZE_USER,
)
from nodes.extraction.schemas import (
    ExtractedFinding,
    ExtractionReply,
    SectionChoice,
    SynthesisReply,
)
from nodes.extraction.sections import SectionSearch
from nodes.extraction.synthesis import (
    Synthesis,
    check_calculation,
    finding_ids,
    source_of,
    value_text,
)
from state.extraction_state import FailedSearch, Finding
from tools.calculator import numbers_in, to_number
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller
from tools.section_text import Block, FetchedSection, page_tag


def section_lines(search: SectionSearch, limit: int) -> str:
    """Render the shortlist of sections: id | heading | pages | search hits inside."""
    lines = "\n".join(
        f"{c.section_id} | {c.heading[:160]} | {page_tag(c.pages)} | hits {c.hits}"
        for c in search.candidates[:limit]
    )
    return as_data(lines, "section shortlist")


def llm_choose(
    caller: StructuredCaller, meter: CostMeter, search: SectionSearch, question: str, limit: int
) -> list[str]:
    """Ask the model which sections to fetch for the item (ids from the shortlist)."""
    shortlist = {c.section_id for c in search.candidates[:limit]}

    def check(reply: SectionChoice) -> None:
        unknown = [s for s in reply.sections if s not in shortlist]
        if unknown:
            raise ValueError(f"unknown section ids {unknown}; use ids from the list")

    user = CHOOSE_USER.format(
        sections=section_lines(search, limit), question=question, item=search.item
    )
    reply = caller.call(SectionChoice, CHOOSE_SYSTEM, user, meter, validate=check)
    return list(dict.fromkeys(reply.sections))


def pages_check(fetched: Sequence[FetchedSection]) -> Callable[[ExtractionReply], None]:
    """Return a validator sending findings on pages that were not fetched back for repair."""
    pages = set().union(*(section.page_numbers() for section in fetched))

    def check(reply: ExtractionReply) -> None:
        if not pages:
            return
        wrong = sorted({f.page for f in reply.findings if f.page is not None} - pages)
        if wrong:
            raise ValueError(f"pages {wrong} were not fetched; cite the page tag of the value")

    return check


def llm_extract(
    caller: StructuredCaller,
    meter: CostMeter,
    fetched: Sequence[FetchedSection],
    question: str,
    item: str,
    iteration: int,
) -> tuple[list[Finding], str | None]:
    """Ask the model for findings in the fetched text; return them and its fail reason."""
    text = as_data("\n\n".join(section.text() for section in fetched), "fetched sections")
    user = EXTRACT_USER.format(sections=text, question=question, item=item)
    reply = caller.call(ExtractionReply, EXTRACT_SYSTEM, user, meter, pages_check(fetched))
    findings = [as_finding(found, fetched, iteration) for found in reply.findings]
    return findings, None if findings else reply.fail


def source_block(found: ExtractedFinding, fetched: Sequence[FetchedSection]) -> Block:
    """Return the fetched block stating a finding: on its page, holding its value if any does."""
    blocks = [block for section in fetched for block in section.blocks]
    on_page = [b for b in blocks if found.page is None or covers(b, found.page)] or blocks
    digits = str(found.value).replace(",", "").split(".")[0]
    holding = [b for b in on_page if digits and digits in b.text.replace(",", "")]
    return (holding or on_page)[0]


def covers(block: Block, page: int) -> bool:
    """Tell whether a block or one of its rows is printed on a page."""
    return any(first <= page <= last for first, last in block.spans())


def as_finding(
    found: ExtractedFinding, fetched: Sequence[FetchedSection], iteration: int
) -> Finding:
    """Turn the model's finding into the state's record, tied to the block that states it."""
    block = source_block(found, fetched)
    section = next(s for s in fetched if block in s.blocks)
    number = to_number(found.value) if isinstance(found.value, str) else found.value
    keep_text = isinstance(found.value, str) and len(numbers_in(found.value)) != 1
    return {
        "label": found.label,
        "value": found.value if keep_text or number is None else float(number),
        "unit": found.unit,
        "page": found.page,
        "section": found.section or section.heading,
        "context": found.context,
        "component_id": block.component_id,
        "doc_id": section.doc_id,
        "iteration": iteration,
        "score": 1.0,
    }


def finding_lines(findings: Sequence[Finding]) -> str:
    """Render findings for the synthesis agent: id | label = value | page | section | context."""
    lines = [
        f"{ref} | {f['label']} = {value_text(f)} | page {f['page']} | {f['section'][:80]} | "
        f"{f['context'][:160]}"
        for ref, f in finding_ids(findings).items()
    ]
    return as_data("\n".join(lines), "findings and their context") if lines else NO_FINDINGS


def failure_lines(failed: Sequence[FailedSearch]) -> str:
    """Render failed searches: item, reason, sections tried."""
    lines = [
        f"- {f['item']}: {f['reason']} (tried: {', '.join(f['sections_tried'][:4])})"
        for f in failed
    ]
    return "\n".join(lines) or NO_FAILURES


def llm_synthesize(
    caller: StructuredCaller,
    meter: CostMeter,
    question: str,
    findings: Sequence[Finding],
    failed: Sequence[FailedSearch],
    left: int,
    tried: set[str],
) -> Synthesis:
    """Ask the model for a verdict over the findings; check its arithmetic with the calculator.

    A `needs` naming an item already searched for is sent back: the model must ask for
    another path to it, or fail.
    """
    by_id = finding_ids(findings)

    def check(reply: SynthesisReply) -> None:
        if reply.status == "answer" and reply.calculation:
            check_calculation(reply.calculation, reply.answer or "", findings)
        if reply.status == "needs" and " ".join((reply.needs or "").lower().split()) in tried:
            raise ValueError(f"{reply.needs!r} was already searched for; ask for another path")

    user = SYNTHESIZE_USER.format(
        findings=finding_lines(findings), failed=failure_lines(failed), question=question, left=left
    )
    reply = caller.call(SynthesisReply, SYNTHESIZE_SYSTEM, user, meter, validate=check)
    answer, calculation = reply.answer, None
    if reply.status == "answer" and reply.calculation:
        answer, calculation = check_calculation(reply.calculation, reply.answer or "", findings)
    sources = tuple(source_of(by_id[ref]) for ref in reply.sources if ref in by_id)
    return Synthesis(
        reply.status, answer, sources, reply.confidence, reply.needs, reply.reason, calculation
    )
