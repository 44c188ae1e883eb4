"""Read the numbers of a financial answer: value, sign, scale word, kind (money, %, ratio).

Rules (the same for predictions and gold answers, for any filing):
- A number is digits with optional thousands commas and decimals ("1,577", "1577.00", ".5").
- Scale words after it multiply it: thousand/k, million/mn/mm/m/mln, billion/bn/b/bln,
  trillion/tn ("$2,018mn", "1.5 billion"). `scale` stays None when none is written, because a
  bare "1577" in an answer is in whatever unit the question asked for (see `unit_hint`).
- Kind: "%", "percent", "percentage points" and "bps" (÷100) make a percent; "x" or "times"
  a ratio; "$", "US$", "USD", "dollars", "€", "£" (before or after) money; else plain.
- Sign: a leading minus or accounting parentheses ("(1,234)", "$(45.2)") make it negative.
  A bare "(1)" is an enumerator, not a number.
- Not answer numbers, dropped: years (a bare integer 1900-2100), period lengths ("the 12
  months ended"), ordinals ("1st"), numbers glued to letters or ids ("FY2022", "Q2",
  "COVID-19", "DOC#45", "737MAX", "777X"), SEC form names ("10-K", "8-K"), page and note
  citations ("p. 45", "pages 45-46", "Note 7", "Item 8") and the day of a written date
  ("May 26, 2023").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["money", "percent", "ratio", "plain"]

SCALE_WORDS: dict[str, float] = {
    "thousand": 1e3,
    "thousands": 1e3,
    "k": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mn": 1e6,
    "mm": 1e6,
    "mln": 1e6,
    "m": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
    "bln": 1e9,
    "b": 1e9,
    "trillion": 1e12,
    "trillions": 1e12,
    "tn": 1e12,
}
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_LABELS = (
    r"pages?|pp?|notes?|items?|sections?|parts?|exhibits?|tables?|figures?|fig|schedules?"
    r"|footnotes?|fy|cy|q|h|form|rule|article|level|step|iteration|rank|top"
)
_CITATION = re.compile(
    rf"\b(?:{_LABELS})\.?\s*#?\d+(?:\s*(?:[-\u2013,&]|and|to)\s*\d+)*(?![.,]?\d|\s*%)",
    re.IGNORECASE,
)
_FORMS = re.compile(r"\b(?:10-?K|10-?Q|8-?K|20-?F|6-?K|S-[1-4]|DEF\s*14A)\b", re.IGNORECASE)
_DATES = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?![.,]\d|\s*%),?"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\b"
    r"|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2})",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"(?<![\w.#/])(?<![A-Za-z]-)(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]\d)|(?<![\w.])\.\d+"
)
_BEFORE = re.compile(
    r"(?P<open>\()?\s*(?P<minus>[-\u2212\u2013])?\s*(?P<cur>US\$|\$|€|£|USD|EUR|GBP)?\s*"
    r"(?P<open2>\()?\s*(?P<minus2>[-\u2212])?\s*$",
    re.IGNORECASE,
)
_AFTER = re.compile(
    r"^(?P<close>\))?\s*(?:(?P<pct>%|percent\b|per\s+cent\b|percentage\s+points?\b|pp\b|ppts?\b)"
    r"|(?P<bps>bps\b|basis\s+points?\b)|(?P<ratio>x\b|times\b)"
    r"|(?P<scale>thousands?|millions?|billions?|trillions?|mn|mm|mln|bn|bln|tn|k|m|b)\b)?"
    r"\s*(?P<close2>\))?\s*(?P<cur>US\$|\$|USD\b|dollars?\b|EUR\b|euros?\b|€|£)?",
    re.IGNORECASE,
)
_GLUED = re.compile(r"^(?:st|nd|rd|th)\b|^-?[a-z]", re.IGNORECASE)
_PERIOD = re.compile(r"^\s*(?:months?|years?|quarters?|weeks?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """One number of an answer, as written."""

    value: float
    """Signed value before any scale word ("$1.5 billion" → 1.5)."""
    scale: float | None
    """Multiplier of a written scale word, or None when the answer wrote none."""
    kind: Kind
    text: str
    """The span it was read from, for reasons and debugging."""
    decimals: int
    """Digits after the decimal point: the precision the answer was stated at."""

    @property
    def explicit(self) -> float:
        """Return the value times its written scale (1 when none was written)."""
        return self.value * (self.scale or 1.0)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _masked(text: str) -> str:
    """Return text with citations, form names and dates blanked (offsets kept)."""
    for pattern in (_FORMS, _DATES, _CITATION):
        text = pattern.sub(_blank, text)
    return text


def extract_quantities(text: str) -> list[Quantity]:
    """Return the answer numbers of a text, in order (see the module rules)."""
    masked = _masked(text)
    found: list[Quantity] = []
    for match in _NUMBER.finditer(masked):
        quantity = _read(masked, match)
        if quantity is not None:
            found.append(quantity)
    return found


def _read(text: str, match: re.Match[str]) -> Quantity | None:
    """Read one number with the words around it; None when it is not an answer number."""
    digits = match.group(0)
    rest = text[match.end() :]
    if _GLUED.match(rest) and not _AFTER.match(rest.lower()).group(0).strip():  # type: ignore[union-attr]
        return None
    before = _BEFORE.search(text[max(0, match.start() - 8) : match.start()])
    after = _AFTER.match(rest)
    assert before is not None and after is not None  # both patterns match the empty string
    opened = bool(before.group("open") or before.group("open2"))
    closed = bool(after.group("close") or after.group("close2"))
    kind = _kind(before, after)
    value = float(digits.replace(",", ""))
    plain_integer = kind == "plain" and "." not in digits and after.group("scale") is None
    if plain_integer and "," not in digits and (1900 <= value <= 2100 or _PERIOD.match(rest)):
        return None  # a year, or a period's length ("the 12 months ended")
    if after.group("ratio") == "X" and "." not in digits:
        return None  # a model name ("777X"); a multiple is "10x" or "2.5X"
    if opened and closed and plain_integer and value < 10 and "," not in digits:
        return None  # an enumerator: "(1)"
    if after.group("bps"):
        value /= 100.0
    negative = bool(before.group("minus") or before.group("minus2")) or (opened and closed)
    scale_word = (after.group("scale") or "").lower()
    decimals = len(digits.partition(".")[2]) + (2 if after.group("bps") else 0)
    span = text[match.start() - len(before.group(0)) : match.end() + len(after.group(0))]
    return Quantity(
        -value if negative else value,
        SCALE_WORDS.get(scale_word),
        kind,
        span.strip(),
        decimals,
    )


def _kind(before: re.Match[str], after: re.Match[str]) -> Kind:
    if after.group("pct") or after.group("bps"):
        return "percent"
    if after.group("ratio"):
        return "ratio"
    if before.group("cur") or after.group("cur"):
        return "money"
    return "plain"


_HINT = re.compile(
    r"\b(?:in|of)\s+(?:(?:USD|US\$|\$|U\.S\.\s*dollars?|dollars?|EUR|GBP)\s+)?"
    r"(thousands|millions|billions|trillions)\b",
    re.IGNORECASE,
)


def unit_hint(question: str) -> float | None:
    """Return the scale a question asks answers in ("Answer in USD millions" → 1e6), if any."""
    found = _HINT.search(question or "")
    return SCALE_WORDS[found.group(1).lower()] if found else None
