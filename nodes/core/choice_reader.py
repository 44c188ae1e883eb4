"""Offline answers to closed questions: pick one of two named options, or say yes or no.

"Which was formed first, A or B?" reads the first year in each option's best evidence and
keeps the earlier; "larger/more" compares the first other number. Without two values, the
option whose evidence ranks higher wins. "Are A and B both X?" answers no when one
entity's evidence says none of the question's other words, else yes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from nodes.core.answer_types import QuestionShape, content_stems, tokens
from nodes.core.span_candidates import SpanKind, first_value, name_spans

if TYPE_CHECKING:
    from nodes.core.span_candidates import Evidence


def evidence_of(name: str, evidence: Sequence[Evidence], share: float) -> Evidence | None:
    """Return the best-ranked component that mentions a name (in its title or text).

    `share` (ReaderTuning.option_share) is the part of the name's words it must contain.
    """
    wanted = content_stems(name)
    if not wanted:
        return None
    for item in sorted(evidence, key=lambda e: e.rank):
        said = content_stems(" ".join((item.title, *item.sentences, *item.header)))
        if len(wanted & said) / len(wanted) >= share:
            return item
    return None


def choose_option(shape: QuestionShape, evidence: Sequence[Evidence], share: float) -> str:
    """Return the option the evidence favours (by the compared value, else by rank)."""
    support = [evidence_of(option, evidence, share) for option in shape.options]
    if shape.order is not None:
        kind: SpanKind = "year" if shape.order in ("min_year", "max_year") else "number"
        values = [first_value(" ".join(item.sentences), kind) if item else None for item in support]
        known = [(value, at) for at, value in enumerate(values) if value is not None]
        if len(known) == len(shape.options):
            pick = min(known) if shape.order.startswith("min") else max(known)
            return shape.options[pick[1]]
    ranks = [item.rank if item else len(evidence) for item in support]
    return shape.options[ranks.index(min(ranks))]


def yes_or_no(question: str, evidence: Sequence[Evidence], share: float) -> str:
    """Return "no" when an entity the question names has evidence lacking its predicate."""
    words = tokens(question)
    entities = [span.text for span in name_spans(words) if span.start > 0]
    named = set().union(*(content_stems(entity) for entity in entities)) if entities else set()
    predicate = content_stems(question) - named
    if not entities or not predicate:
        return "yes"
    for entity in entities:
        item = evidence_of(entity, evidence, share)
        if item is not None and not predicate & content_stems(" ".join(item.sentences)):
            return "no"
    return "yes"
