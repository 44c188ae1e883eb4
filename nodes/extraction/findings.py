"""The offline twin of the extraction agent: findings by rules over table rows and sentences.

A finding is a row or sentence of a fetched section that shares terms with the shopping
item (BM25 within the fetched units, `tools.sparse_index.bm25_within`) and states a
number; a row or sentence naming the question's period (a year, "FY2022") counts more,
and from a row the cell under that period's column is taken. A sentence without a
number is kept as a text finding at a discount (seed 002: a value may be a statement).
Units come from the value ("$", "%", a scale word) and from the table's caption
("$ in millions").
"""

from __future__ import annotations

from collections.abc import Sequence

from state.extraction_state import Finding
from tools.calculator import SCALE_WORDS, to_number
from tools.section_text import FetchedSection, Unit
from tools.sparse_index import bm25_within
from tools.values import CAPTION_SCALE, MODERN_YEAR, SCALED_AMOUNT, modern_years

PERIOD_WEIGHT = 0.5
"""Extra weight of a row or sentence that names the question's period."""
TEXT_WEIGHT = 0.5
"""Weight of a sentence that states no number (a text finding)."""
CONTEXT_CHARS = 300
LABEL_WORDS = 10
"""A sentence finding is labelled by its opening words (the item is only the lens)."""


def cells(row_text: str) -> list[tuple[str, str]]:
    """Split a rendered row ("name: value | name: value") into (column, value) pairs."""
    pairs = []
    for part in row_text.split(" | "):
        name, sep, value = part.partition(": ")
        pairs.append((name.strip(), value.strip()) if sep else ("", part.strip()))
    return pairs


def is_amount(text: str) -> bool:
    """Tell whether a cell or phrase states a number that is not just a year."""
    number = to_number(text)
    return number is not None and not MODERN_YEAR.fullmatch(text.strip().strip("$() ,.;:"))


def row_value(text: str, wanted: set[str]) -> tuple[str, str, str] | None:
    """Return (label, value, period) of a table row: the wanted period's cell, else the first."""
    pairs = cells(text)
    label = pairs[0][1] if pairs else ""
    amounts = [(name, value) for name, value in pairs[1:] if is_amount(value)]
    if not amounts:
        return None
    for name, value in amounts:
        hit = modern_years(name) & wanted
        if hit:
            return label, value, sorted(hit)[0]
    name, value = amounts[0]
    return label, value, ",".join(sorted(modern_years(name)))


def sentence_value(text: str) -> str | None:
    """Return the first amount a sentence states with its sign, currency, % and scale word.

    A bare small integer ("Note 6", "17 plants") is a count or a reference, not an amount:
    an amount has a currency sign, a percent, a scale word, a thousands comma or decimals.
    """
    for match in SCALED_AMOUNT.finditer(text):
        number = match.group("number").rstrip(",.")
        scale = (match.group("scale") or "").lower()
        marked = any(mark in number for mark in "$€£%,.") or scale in SCALE_WORDS
        if marked and is_amount(number):
            return f"{number} {scale}" if scale in SCALE_WORDS else number
    return None


def unit_of(value: str, caption: str) -> str | None:
    """Return the unit of a value: currency, percent and scale from the value or the caption."""
    parts = []
    if "%" in value:
        return "percent"
    if "$" in value or "$" in caption:
        parts.append("USD")
    scale = next((w for w in SCALE_WORDS if w in value.lower()), None)
    if scale is None and (match := CAPTION_SCALE.search(caption)):
        scale = match.group(1).lower().rstrip("s")
    if scale:
        parts.append(f"{scale}s")
    return " ".join(parts) or None


def read_unit(
    unit: Unit, caption: str, wanted: set[str]
) -> tuple[str, float | str, str | None, float] | None:
    """Return (label, value, unit, weight) of one row or sentence, None if it states nothing."""
    if unit.kind == "row":
        found = row_value(unit.text, wanted)
        if found is None:
            return None
        label, value, period = found
        named = f"{label} ({period})" if period else label
        number = to_number(value)
        return named, value if number is None else number, unit_of(value, caption), 1.0
    phrase = sentence_value(unit.text)
    label = " ".join(unit.text.split()[:LABEL_WORDS])
    if phrase is None:
        return label, " ".join(unit.text.split())[:CONTEXT_CHARS], None, TEXT_WEIGHT
    number = to_number(phrase)
    return label, phrase if number is None else number, unit_of(phrase, ""), 1.0


def rule_findings(
    item: str, question: str, fetched: Sequence[FetchedSection], iteration: int, limit: int
) -> list[Finding]:
    """Return up to `limit` findings for the item from the fetched sections, best first."""
    units = [(u, s, b.text) for s in fetched for b in s.blocks for u in b.units]
    if not units:
        return []
    scores = bm25_within(item, [u.text for u, _, _ in units])
    wanted = modern_years(f"{question} {item}")
    found: list[Finding] = []
    for (unit, section, caption), score in zip(units, scores, strict=True):
        read = read_unit(unit, caption.split("\n")[0], wanted) if score > 0 else None
        if read is None:
            continue
        label, value, unit_name, weight = read
        weight *= 1.0 + PERIOD_WEIGHT * bool(wanted & modern_years(unit.text))
        found.append(
            {
                "label": label,
                "value": value,
                "unit": unit_name,
                "page": unit.pages[0] if unit.pages else None,
                "section": section.heading,
                "context": " ".join(unit.text.split())[:CONTEXT_CHARS],
                "component_id": unit.component_id,
                "doc_id": section.doc_id,
                "iteration": iteration,
                "score": round(score * weight, 6),
            }
        )
    found.sort(key=lambda f: -f["score"])
    return found[:limit]
