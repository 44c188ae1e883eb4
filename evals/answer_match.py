"""Decide offline whether an answer is correct: numbers within 1%, else yes/no or short text.

Which rule decides depends on the gold answer (the first that applies):
1. Polarity: a gold that opens with "yes" or "no" is matched by a prediction that opens with
   the same word. Its supporting numbers are not required (a judge reads those).
2. Numbers: a gold with at least one number (see `evals.answer_numbers` for what counts) is
   matched when one of the prediction's first `MAX_CLAIMS` numbers equals one of the gold's.
   Only the first few count because an answer states its result up front; a pasted table
   row holds many numbers and would otherwise be credited for any of them.
3. Short text: a gold of at most `SHORT_GOLD_TOKENS` normalised tokens (SQuAD normalisation,
   `evals.metrics`) is matched by an exact match, or when all its tokens occur in the
   prediction ("Customer deposits" in "The largest liability was customer deposits").
4. Otherwise the gold is prose that word overlap cannot judge: the verdict is `undecided`
   and counts as not correct; `--judge` decides those with an LLM.

Two numbers are equal when they are of compatible kinds (money, percent, ratio, plain; a
plain number goes with any kind, a percent also matches its fraction: "55.1%" = "0.551")
and their magnitudes agree within `TOLERANCE` relative to the gold, or within half a unit
of the gold's last written digit (a gold of "20%" was rounded, so 20.4% agrees). Magnitudes,
because prose states signs in words ("declined 44%") where tables write "(44)".
Scale: a written scale word is applied ("$1.577 billion" = "$1,577 million"). A number
without one is in the unit the question asks for ("Answer in USD millions": "$1577.00" is
1,577 million) or written in full ("1577000000"); when the question names no unit and the
other side has a scale word, any of thousand/million/billion/trillion is tried, since a bare
"1577" under a question about "$1.577 billion" is that figure in millions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evals.answer_numbers import Quantity, extract_quantities, unit_hint
from evals.metrics import normalize_answer

TOLERANCE = 0.01
"""Relative tolerance of a number match (the issue's "within 1% relative")."""
SCALES: tuple[float, ...] = (1.0, 1e3, 1e6, 1e9, 1e12)
MAX_CLAIMS = 4
"""Numbers of a prediction that are read as its answer, in order."""
SHORT_GOLD_TOKENS = 8

Method = Literal["number", "polarity", "text", "undecided", "unanswered"]

_REFUSAL = re.compile(
    r"^(?:fail(?:ed|ure)?|unknown|na|none found|not found|no (?:consistent )?answer)\b"
    r"|\b(?:cannot|can not|cant|unable to|could not|couldnt) "
    r"(?:answer|determine|find|be (?:answered|determined|found))\b"
    r"|\b(?:not enough|insufficient) (?:information|data|evidence)\b"
    r"|\bi (?:dont|do not) know\b"
)
_POLARITY = frozenset({"yes", "no"})


@dataclass(frozen=True)
class AnswerVerdict:
    """Whether an answer was given and whether it is correct, with the rule that decided."""

    answered: bool
    correct: bool
    method: Method
    reason: str


def is_answered(prediction: str | None) -> bool:
    """Tell whether a prediction is an answer: not empty, not a refusal or a "fail"."""
    text = normalize_answer(prediction or "")
    return bool(text) and _REFUSAL.search(text) is None


def match_answer(
    prediction: str | None, answers: Sequence[str], question: str = ""
) -> AnswerVerdict:
    """Judge a prediction against the gold answers (any may match) by the module's rules.

    Args:
        prediction: The system's answer text (None or empty when it gave none).
        answers: The gold answers; an empty list gives an `undecided` verdict.
        question: The question, read for the unit it asks answers in.
    """
    if not is_answered(prediction):
        return AnswerVerdict(False, False, "unanswered", "no answer, or a refusal")
    verdicts = [_against(str(prediction), gold, unit_hint(question)) for gold in answers]
    if not verdicts:
        return AnswerVerdict(True, False, "undecided", "no gold answer")
    return next((v for v in verdicts if v.correct), verdicts[0])


def _against(prediction: str, gold: str, hint: float | None) -> AnswerVerdict:
    """Judge an answered prediction against one gold answer."""
    gold_tokens = normalize_answer(gold).split()
    if gold_tokens and gold_tokens[0] in _POLARITY:
        said = normalize_answer(prediction).split()[:1]
        ok = said == gold_tokens[:1]
        return AnswerVerdict(True, ok, "polarity", f"gold opens with {gold_tokens[0]!r}")
    gold_numbers = extract_quantities(gold)
    if gold_numbers:
        return _by_numbers(extract_quantities(prediction)[:MAX_CLAIMS], gold_numbers, hint)
    if len(gold_tokens) <= SHORT_GOLD_TOKENS:
        words = set(normalize_answer(prediction).split())
        ok = bool(gold_tokens) and set(gold_tokens) <= words
        return AnswerVerdict(
            True, ok, "text", "gold tokens " + ("all" if ok else "not all") + " present"
        )
    return AnswerVerdict(True, False, "undecided", "prose gold without numbers: needs --judge")


def _by_numbers(
    claims: Sequence[Quantity], gold: Sequence[Quantity], hint: float | None
) -> AnswerVerdict:
    if not claims:
        return AnswerVerdict(True, False, "number", "the answer states no number")
    for claim in claims:
        for target in gold:
            if quantities_match(claim, target, hint):
                reason = f"{claim.text!r} matches gold {target.text!r}"
                return AnswerVerdict(True, True, "number", reason)
    said = ", ".join(repr(q.text) for q in claims)
    wanted = ", ".join(repr(q.text) for q in gold[:MAX_CLAIMS])
    return AnswerVerdict(True, False, "number", f"{said} vs gold {wanted}")


def quantities_match(claim: Quantity, gold: Quantity, hint: float | None = None) -> bool:
    """Tell whether a predicted number equals a gold number (see the module rules).

    Args:
        claim: A number of the prediction.
        gold: A number of the gold answer.
        hint: The scale the question asks for (`unit_hint`), if any.
    """
    kinds = {claim.kind, gold.kind}
    if "percent" in kinds:
        return _percent_match(claim, gold)
    if len(kinds - {"plain"}) > 1:
        return False  # money vs ratio
    if "ratio" in kinds:
        return _close(claim.value, gold.value, _unit(gold, 1.0))
    claimed = _absolute(claim, gold, hint)
    return any(
        _close(value * scale, target * gold_scale, _unit(gold, gold_scale))
        for target, gold_scale in _absolute(gold, claim, hint)
        for value, scale in claimed
    )


def _percent_match(claim: Quantity, gold: Quantity) -> bool:
    """Match percents with percents, or with a plain number written as a fraction or not."""
    if claim.kind not in ("percent", "plain") or gold.kind not in ("percent", "plain"):
        return False
    if claim.scale is not None or gold.scale is not None:
        return False
    if claim.kind == gold.kind:
        return _close(claim.value, gold.value, _unit(gold, 1.0))
    if gold.kind == "plain":  # a fraction gold ("0.551") against a percent claim ("55.1%")
        return any(_close(claim.value / f, gold.value, _unit(gold, 1.0)) for f in (1.0, 100.0))
    return any(_close(claim.value * f, gold.value, _unit(gold, 1.0)) for f in (1.0, 100.0))


def _absolute(quantity: Quantity, other: Quantity, hint: float | None) -> list[tuple[float, float]]:
    """Return the (value, multiplier) readings of a number (see the module's scale rules)."""
    if quantity.scale is not None:
        return [(quantity.value, quantity.scale)]
    if hint is not None:
        return [(quantity.value, 1.0), (quantity.value, hint)]
    if other.scale is not None:
        return [(quantity.value, scale) for scale in SCALES]
    return [(quantity.value, 1.0)]


def _unit(gold: Quantity, scale: float) -> float:
    """Return the size of one unit of the gold's last written digit, at a scale."""
    return (10.0**-gold.decimals) * abs(scale)


def _close(value: float, target: float, unit: float) -> bool:
    """Compare magnitudes: within TOLERANCE of the target, or within half its last unit."""
    gap = abs(abs(value) - abs(target))
    return gap <= TOLERANCE * abs(target) + 1e-12 or gap <= unit / 2 * (1 + 1e-9)
