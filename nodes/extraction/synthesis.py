"""Synthesis without a model (coverage of the question's items) and the calculator's check.

Offline, the question's items are its content words (the BM25 analyzer's stems). A
finding answers when its label and context cover at least ANSWER_COVERAGE of them and name
any metric the question names (operating income alone does not answer a margin);
otherwise the one item still needed is the first input of a metric the question names
that no finding states (tools.metric_terms: "quick ratio" -> "total current liabilities"),
else the words no finding covers, unless that item was already tried or no iteration is
left. With nothing new to ask, the best numeric
finding is the answer at low confidence, and with no finding at all the loop fails.

With a model, the verdict may name a calculation over finding ids ("f2 / f1 * 100"); the
calculator computes it and, when the number the model wrote disagrees by more than 1%,
the computed one replaces it (the check is recorded with the verdict).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.core.lexical import content_words, coverage, stems
from state.extraction_state import FailedSearch, Finding, Status
from tools.calculator import CalculationError, agrees, evaluate, to_number
from tools.metric_terms import metric_inputs, metrics_named
from tools.values import SIGNED_NUMBER

ANSWER_COVERAGE = 0.5
"""Share of the question's content terms one finding must cover to answer offline."""
NEEDS_WORDS = 6
"""Words of the question an offline `needs` item keeps, in the question's order."""


@dataclass(frozen=True)
class Synthesis:
    """A verdict before it is stamped with its iteration and author."""

    status: Status
    answer: str | None = None
    sources: tuple[str, ...] = ()
    confidence: str | None = None
    needs: str | None = None
    reason: str | None = None
    calculation: dict[str, object] | None = None


def value_text(finding: Finding) -> str:
    """Render a finding's value with its unit ("5,298 USD millions")."""
    value = finding["value"]
    if isinstance(value, float):
        text = f"{value:,.0f}" if value.is_integer() else f"{value:,.4g}"
    else:
        text = str(value)
    return f"{text} {finding['unit']}" if finding["unit"] else text


def finding_ids(findings: Sequence[Finding]) -> dict[str, Finding]:
    """Return the findings by the ids prompts show them with: f1, f2, ..."""
    return {f"f{i}": finding for i, finding in enumerate(findings, start=1)}


def source_of(finding: Finding) -> str:
    """Return the page key a finding cites, or its component when it has no page."""
    if finding["page"] is None:
        return finding["component_id"]
    return f"{finding['doc_id']}#{finding['page']}"


def coverage_of(question: str, finding: Finding) -> float:
    """Return the share of the question's content terms a finding's label and context hold."""
    return coverage(question, f"{finding['label']} {finding['context']}")


def offline_synthesis(
    question: str,
    findings: Sequence[Finding],
    failed: Sequence[FailedSearch],
    tried: set[str],
    last_iteration: bool,
) -> Synthesis:
    """Answer, name the one missing item, or fail, by coverage of the question's items."""
    numeric = [f for f in findings if isinstance(f["value"], float)]
    ranked = sorted(numeric or findings, key=lambda f: (-coverage_of(question, f), -f["score"]))
    best = ranked[0] if ranked else None
    if (
        best is not None
        and coverage_of(question, best) >= ANSWER_COVERAGE
        and _states_metrics(question, best)
    ):
        return answer_with(best, "high" if best in numeric else "medium", "covers the question")
    covered = stems(" ".join(f"{f['label']} {f['context']}" for f in findings).split())
    inputs = [i for i in metric_inputs(question) if not stems(i.split()) <= covered]
    inputs = [i for i in inputs if i not in tried]
    if inputs and not last_iteration:  # a metric no filing prints: ask for what it is made of
        reason = f"{', '.join(metrics_named(question))} needs {inputs[0]!r}; no finding states it"
        return Synthesis("needs", needs=inputs[0], reason=reason)
    missing = [w for w in content_words(question) if not stems([w]) <= covered]
    needs = " ".join(missing[:NEEDS_WORDS])
    if needs and " ".join(needs.split()) not in tried and not last_iteration:
        reason = f"no finding states {needs!r} yet"
        return Synthesis("needs", needs=needs, reason=reason)
    if best is not None:
        return answer_with(best, "low", "nothing new to ask; the best finding covers part of it")
    tried_sections = sorted({s for f in failed for s in f["sections_tried"]})
    reason = f"no finding in {len(tried_sections)} sections tried for {len(tried)} items"
    return Synthesis("fail", reason=reason)


def _states_metrics(question: str, finding: Finding) -> bool:
    """Tell whether a finding names every metric the question names (an input is not one)."""
    words = stems(f"{finding['label']} {finding['context']}".split())
    return all(stems(metric.split()) <= words for metric in metrics_named(question))


def answer_with(best: Finding, confidence: str, why: str) -> Synthesis:
    """Return an answer verdict stating one finding's value, citing its page."""
    return Synthesis(
        "answer", value_text(best), (source_of(best),), confidence, reason=f"{best['label']}: {why}"
    )


def check_calculation(
    expression: str, answer: str, findings: Sequence[Finding]
) -> tuple[str, dict[str, object]]:
    """Compute the verdict's calculation and correct the answer's number when it disagrees.

    Raises:
        CalculationError: If the expression is not arithmetic over numeric finding ids.
    """
    values = {
        ref: number
        for ref, finding in finding_ids(findings).items()
        if (number := to_number(finding["value"])) is not None
    }
    result = evaluate(expression, values)
    match = SIGNED_NUMBER.search(answer)
    claimed = to_number(match.group(0)) if match else None
    agreed = claimed is not None and (
        agrees(claimed, result) or agrees(claimed, result * 100) or agrees(claimed * 100, result)
    )
    shown = f"{result:,.4g}" if abs(result) < 1000 else f"{result:,.0f}"
    if not agreed:
        answer = answer[: match.start()] + shown + answer[match.end() :] if match else shown
    check: dict[str, object] = {
        "expression": expression,
        "result": result,
        "claimed": claimed,
        "agreed": agreed,
    }
    return answer, check


__all__ = ["CalculationError", "Synthesis", "check_calculation", "offline_synthesis"]
