"""Values as texts write them: numbers, years, dates, ordinals and quarters, in one place.

Questions, table cells, sentences and filings all state values; every rule that reads one
(the question's analysis, the span and cell readers, superlatives over a table, a filing's
period) reads it with the patterns and parsers here, so "what is a year" has one answer
per purpose. Where two purposes need different patterns, both live here under names that
say the difference (`YEAR` any four-digit year a sentence states; `MODERN_YEAR` a year a
filing or its question names).
"""

from __future__ import annotations

import re
from datetime import date

MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}  # fmt: skip
"""Month names and their abbreviations (lowercase) -> month number."""
MONTH_NAMES = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
)
"""The full month names as a regex alternation ("January|February|...")."""

ORDINAL_WORDS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
"""Ordinal words; a word's index + 1 is its rank."""
QUARTER_WORDS = tuple(ORDINAL_WORDS[:4])
"""A quarter's ordinal as a filing writes it; its index + 1 is the quarter."""
ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)")
"""A numeric ordinal ("2nd", "9th")."""

SIGNED_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
"""A number with thousands separators and decimals, maybe negative ("-1,234.5")."""
DIGIT_GROUPS = re.compile(r"\d+(?:[.,]\d+)*")
"""A run of digit groups joined by dots or commas ("1,234", "3.5", "1.2.3")."""
STATEMENT_AMOUNT = re.compile(r"\(?-?\$?\s*\d[\d,]*(?:\.\d+)?\)?|\(?-?\$?\s*\.\d+\)?")
"""An amount as a financial statement prints it ("$1,234", "(56.7)" negative, "$.5")."""
SCALED_AMOUNT = re.compile(
    r"(?P<number>\(?[$€£]?-?\d[\d,]*(?:\.\d+)?\)?(?:\s?%)?)(?:\s+(?P<scale>[A-Za-z]+))?"
)
"""An amount with its currency, percent sign and the word after it ("$1.2 billion")."""
CAPTION_SCALE = re.compile(r"\bin\s+(thousands|millions|billions)\b", re.IGNORECASE)
"""A table caption's scale ("in millions")."""
FEET_INCHES = re.compile(r"(\d+)\s*['′]\s*(\d+)")
"""A height in feet and inches ("6'2", "6 ′ 2")."""
NUMBER_WORDS = (  # not "one": "one of the ..." is rarely a count
    "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
    "sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    "hundred|dozen|twice"
)
"""Count words a sentence may state a number with, as a regex alternation."""
STATED_NUMBER = re.compile(
    r"(?<![\w.])\$?\d[\d,]*(?:\.\d+)?(?:\s?(?:%|percent|thousand|million|billion|trillion)\b)?"
    rf"|\b(?:{NUMBER_WORDS})(?:-time\b|\s+times\b)?\b",
    re.IGNORECASE,
)
"""A number as a sentence states it: digits with a scale or percent, or a count word."""

YEAR = re.compile(r"\b(?:1[0-9]|20)\d{2}\b")
"""Any four-digit year a sentence may state (1000-2099)."""
TABLE_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
"""A year in a table cell that dates a record (1500-2099; earlier four-digit values in a
date column are more often counts than years)."""
MODERN_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")
"""A year a filing or a question about one names (1900-2099)."""
CALENDAR_YEAR = re.compile(r"(?<![\d$.,])((?:19|20)\d{2})(?![\d%])")
"""A modern year that is not part of an amount or a percentage ("$2019", "2019%")."""
SHORT_FISCAL_YEAR = re.compile(r"\bfy\s?'?(\d{2})\b", re.IGNORECASE)
"""A two-digit fiscal year ("FY22", "FY '22")."""
FISCAL_YEAR = re.compile(r"\b(?:FY\s?'?|fiscal\s+(?:year\s+)?)((?:19|20)?\d{2})\b", re.I)
"""A fiscal year ("FY2022", "FY22", "fiscal 2023", "fiscal year 23")."""
ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
"""An ISO date ("2023-06-30")."""
STATED_DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:{MONTH_NAMES})(?:,?\s+\d{{3,4}})?"
    rf"|(?:{MONTH_NAMES})(?:\s+\d{{1,2}})?(?:\s*,)?\s+\d{{3,4}}"
    r"|\d{1,2}(?:st|nd|rd|th)[- ]century"
    r"|\d{4}s)\b"
)
"""A date as a sentence states it: "2 June 1961", "June 1961", "the 19th century", "1990s"."""
_MONTH_DAY_YEAR = re.compile(r"([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})")
_DAY_MONTH_YEAR = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+([A-Z][a-z]+)\.?,?\s+((?:19|20)\d{2})\b"
)
_WORD = re.compile(r"[\w']+")
_DAY = re.compile(r"\b([0-3]?\d)\b")


def ordinal_rank(word: str) -> int | None:
    """Return the rank an ordinal names ("second" -> 2, "9th" -> 9), else None."""
    numeric = ORDINAL.fullmatch(word)
    if numeric:
        return max(1, int(numeric.group(1)))
    lowered = word.lower()
    return ORDINAL_WORDS.index(lowered) + 1 if lowered in ORDINAL_WORDS else None


def digit_numbers(text: str) -> list[str]:
    """Return the numbers a text states, without thousands separators, in order, once each."""
    return list(dict.fromkeys(n.replace(",", "") for n in DIGIT_GROUPS.findall(text)))


def number_value(text: str) -> float | None:
    """Return a text's first number (a height in feet and inches as inches), else None."""
    feet = FEET_INCHES.search(text)
    if feet:
        return float(int(feet.group(1)) * 12 + int(feet.group(2)))
    number = SIGNED_NUMBER.search(text)
    return float(number.group().replace(",", "")) if number else None


def date_value(text: str) -> tuple[float, float, float] | None:
    """Return a text's date as a sortable (year, month, day); 0 for a part it does not name."""
    iso = ISO_DATE.search(text)
    if iso:
        year, month, day = (float(part) for part in iso.groups())
        return year, month, day
    words = [word.lower().rstrip(".") for word in _WORD.findall(text)]
    month = next((MONTHS[w] for w in words if w in MONTHS), 0)
    year_found = TABLE_YEAR.search(text)
    if not month and not year_found:
        return None
    days = [int(d) for d in _DAY.findall(TABLE_YEAR.sub(" ", text)) if 1 <= int(d) <= 31]
    day = days[0] if month and days else 0
    return (float(year_found.group()) if year_found else 0.0, float(month), float(day))


def parse_date(text: str) -> date | None:
    """Return the first full date of a text ("June 30, 2023", "Dec. 31 2022"), else None."""
    for found in _MONTH_DAY_YEAR.finditer(text):
        month = MONTHS.get(found.group(1).lower())
        if month is None:
            continue
        try:
            return date(int(found.group(3)), month, int(found.group(2)))
        except ValueError:
            continue
    return None


def event_date(text: str) -> date | None:
    """Return the date a text names day first ("1st July 2022") or month first, else None."""
    if found := _DAY_MONTH_YEAR.search(text):
        parsed = parse_date(f"{found.group(2)} {found.group(1)}, {found.group(3)}")
        if parsed is not None:
            return parsed
    return parse_date(text)


def modern_years(text: str) -> set[str]:
    """Return the years a text names ("2022", and "FY22" as "2022")."""
    found = set(MODERN_YEAR.findall(text))
    found.update(f"20{short}" for short in SHORT_FISCAL_YEAR.findall(text))
    return found


def full_year(text: str) -> int:
    """Return a year from two or four digits ("22" -> 2022)."""
    year = int(text)
    return year + 2000 if year < 100 else year
