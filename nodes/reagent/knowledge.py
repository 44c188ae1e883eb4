"""ReAgent's knowledge sets as pure functions: offline assertions, support, conflicts, Ψ.

The offline twin reads an assertion as a slot (entity, attribute) with a value from one
evidence sentence or table row: the entity is the evidence's document title (plus the
row's key cell for a table row), the value the numbers the sentence states that the
sub-question does not, and the attribute the content word just before the first of them
("died in 1906" → attribute "died", value "1906"). Two assertions contradict when they
fill the same slot with disjoint values; an assertion is unsupported when its evidence
mentions none of the sub-question's key terms (seed 004, §4.4: SAT(Φ) fails).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from nodes.core.lexical import STOPWORDS, content_words, coverage, stems
from state.reagent_state import Assertion
from tools.values import digit_numbers

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
ROW_CELL_SEPARATOR = " | "
"""How `state.render.row_text` joins a row's `column: value` cells."""

Contradicts = Callable[[Assertion, Assertion], bool]


def row_key(row_text: str) -> str:
    """Return the first cell's value of a rendered table row (`col: value | ...`)."""
    first = row_text.split(ROW_CELL_SEPARATOR, 1)[0]
    return first.split(":", 1)[-1].strip()


def slot_of(text: str, entity: str, subquestion: str) -> tuple[str, str]:
    """Return (attribute, value) of a sentence: the numbers new to the sub-question.

    The attribute is the last content word before the first new number that is not a
    word of the entity; both are empty when the sentence states no new number.
    """
    asked = set(digit_numbers(subquestion))
    new = [n for n in digit_numbers(text) if n not in asked]
    if not new:
        return "", ""
    first = text.replace(",", "").find(new[0])
    entity_words = {w.lower() for w in _WORD.findall(entity)}
    before = [
        w.lower()
        for w in _WORD.findall(text.replace(",", "")[:first])
        if w.lower() not in STOPWORDS and w.lower() not in entity_words and not w.isdigit()
    ]
    return (before[-1] if before else ""), " ".join(new)


def offline_assertion(
    *,
    agent: str,
    subquestion: int,
    subquestion_text: str,
    title: str,
    unit_text: str,
    unit_is_row: bool,
    evidence: Sequence[str],
    step: int,
) -> Assertion:
    """Read one assertion from the best-matching sentence or row of an evidence component."""
    entity = f"{title} / {row_key(unit_text)}" if unit_is_row else title
    attribute, value = slot_of(unit_text, entity, subquestion_text)
    return {
        "id": f"{agent}@{step}:{evidence[-1]}",
        "agent": agent,
        "subquestion": subquestion,
        "entity": entity,
        "attribute": attribute,
        "value": value,
        "text": unit_text,
        "evidence": list(evidence),
        "step": step,
    }


def key_terms(subquestion: str) -> list[str]:
    """Return what a sub-question names: capitalised words after its first word, and numbers."""
    words = _WORD.findall(subquestion)
    named = [w for w in words[1:] if w[0].isupper() or w[0].isdigit()]
    return [w.lower() for w in named if w.lower() not in STOPWORDS]


def supported(assertion: Assertion, subquestion: str, min_coverage: float) -> bool:
    """Tell whether the assertion's evidence mentions what the sub-question is about.

    An assertion is unsupported when all the names and numbers the sub-question gives are
    absent from its evidence (document title included); a sub-question naming nothing
    needs `min_coverage` of its content words instead.
    """
    evidence = f"{assertion['entity']} {assertion['text']}"
    named = key_terms(subquestion)
    if named:
        return bool(stems(named) & stems(content_words(evidence)))
    return coverage(subquestion, evidence) >= min_coverage


def slot_contradicts(first: Assertion, second: Assertion) -> bool:
    """Tell whether two assertions fill the same slot with disjoint values."""
    if not (first["attribute"] and first["value"] and second["value"]):
        return False
    same_slot = (
        _norm(first["entity"]) == _norm(second["entity"])
        and first["attribute"] == second["attribute"]
    )
    return same_slot and not set(first["value"].split()) & set(second["value"].split())


def _norm(text: str) -> str:
    return " ".join(content_words(text))


def conflicting_pairs(
    assertions: Sequence[Assertion], contradicts: Contradicts
) -> list[tuple[Assertion, Assertion]]:
    """Return every pair of assertions (from different evidence) that contradict."""
    pairs = []
    for at, first in enumerate(assertions):
        for second in assertions[at + 1 :]:
            if first["evidence"] != second["evidence"] and contradicts(first, second):
                pairs.append((first, second))
    return pairs


def consistent(assertions: Sequence[Assertion], contradicts: Contradicts) -> bool:
    """Tell whether a set of assertions is satisfiable (no contradicting pair)."""
    return not conflicting_pairs(assertions, contradicts)


def minimal_conflict_set(
    assertions: Sequence[Assertion], contradicts: Contradicts
) -> list[Assertion]:
    """Return a minimal conflicting subset Ψ: inconsistent, every proper subset consistent.

    The deletion filter: drop each assertion in turn and keep it dropped whenever the rest
    is still inconsistent; what remains is minimal. Empty if the set is consistent.
    """
    if consistent(assertions, contradicts):
        return []
    kept = list(assertions)
    for assertion in list(kept):
        rest = [a for a in kept if a["id"] != assertion["id"]]
        if not consistent(rest, contradicts):
            kept = rest
    return kept


def union(knowledge: dict[str, list[Assertion]]) -> list[Assertion]:
    """Return the global knowledge set Φ: the union of the agents' sets, by agent name."""
    return [a for agent in sorted(knowledge) for a in knowledge[agent]]


def evidence_units(assertions: Iterable[Assertion]) -> list[str]:
    """Return the evidence units (sentences, rows) the assertions were read from."""
    return list(dict.fromkeys(a["evidence"][-1] for a in assertions))
