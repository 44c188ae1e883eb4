"""The extraction loop's checks of a model's proposals (the predicates of nodes.core.guards).

A section choice must name a shortlisted section; a finding's value must be printed in the
fetched text and nothing it carries may read as an instruction; an answer must be in the
findings (or come from the calculator); a `needs` must stay on the question's subject
(its words, or the inputs of a metric it names).
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.core.guards import instruction_like, ungrounded, unsupported_answer
from nodes.extraction.synthesis import Synthesis, value_text
from state.extraction_state import Finding
from tools.metric_terms import metric_inputs
from tools.section_text import FetchedSection


def choice_refusal(sections: Sequence[str], shortlisted: int) -> str | None:
    """Refuse a choice of no section out of a non-empty shortlist."""
    return f"chooses none of {shortlisted} sections" if shortlisted and not sections else None


def findings_refusal(findings: Sequence[Finding], fetched: Sequence[FetchedSection]) -> str | None:
    """Refuse findings whose values the fetched sections do not print, or that instruct."""
    texts = [section.text() for section in fetched]
    for finding in findings:
        value = finding["value"]
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        if instruction_like(" ".join([finding["label"], finding["context"], shown])):
            return f"finding {finding['label'][:60]!r} reads as an instruction"
        problem = unsupported_answer(shown, texts)
        if problem:
            return f"finding {finding['label'][:60]!r}: {problem}"
    return None


def synthesis_refusal(result: Synthesis, question: str, findings: Sequence[Finding]) -> str | None:
    """Refuse an answer the findings do not hold, or a need the question does not ask for."""
    if result.status == "answer" and result.calculation is None:
        evidence = [f"{f['label']}: {value_text(f)}\n{f['context']}" for f in findings]
        return unsupported_answer(result.answer, evidence)
    if result.status == "needs":
        # a metric's inputs (revenue for a margin) are on the subject though unnamed
        grounds = [question, *metric_inputs(question), *(f["label"] for f in findings)]
        return ungrounded([result.needs or ""], grounds, "needed item")
    if instruction_like(result.reason or ""):
        return "its reason reads as an instruction"
    return None
