"""What filing a question asks about: its fiscal years, quarter, a dated event and the form.

Read once per question with the conventions of `tools.filing_periods`: "FY2022", "fiscal
2023", "Q2 of FY2023", "FY2023Q1", "3Q22", "H1 FY2023", "as of 2022", "dated 1st July 2022",
"May 26, 2023" (a month's last day after "as of" / "ended" is a period end, not an event);
the form from its name ("10-K", "8k filing", "quarterly report", "earnings",
"press release") or from what only one form holds (an 8-K reports a dated event; adjusted,
non-GAAP figures and guidance are what an earnings release announces).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from tools.values import CALENDAR_YEAR, FISCAL_YEAR, QUARTER_WORDS, event_date, full_year

_QUARTER = re.compile(
    r"\bQ([1-4])\b|\b([1-4])Q\b|\bFY\s?\d{2,4}\s?Q([1-4])\b|\b("
    + "|".join(QUARTER_WORDS)
    + r")[- ]quarter\b",
    re.I,
)
_QUARTER_YEAR = re.compile(r"\b(?:Q([1-4])\s?'?|([1-4])Q\s?'?)((?:19|20)?\d{2})\b", re.I)
"""A quarter written with its year: "3Q22", "Q3'22", "Q3 2022"."""
_PERIOD_END_CUE = re.compile(r"\b(?:as of|as at|ended|ending|through)\b", re.I)
"""Words that make a month's last day a period end ("as of December 31, 2020")."""
_HALF = re.compile(r"\bH([12])\b|\b(first|second) half\b", re.I)
_FORM_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("10-K", re.compile(r"\b10-?k\b|\bannual report\b", re.I)),
    ("10-Q", re.compile(r"\b10-?q\b|\bquarterly report\b", re.I)),
    ("8-K", re.compile(r"\b8-?k\b|\bcurrent report\b", re.I)),
    (
        "earnings release",
        re.compile(r"\bearnings (?:release|call|report)\b|\bpress release\b", re.I),
    ),
)
_AHEAD = re.compile(r"\b(?:forecast\w*|expect\w*|guidance|outlook|project(?:s|ed|ing)?)\b", re.I)
_RELEASE_WORDS = re.compile(r"\badjusted\b|\bnon[- ]gaap\b|\bguidance\b|\boutlook\b", re.I)
"""Figures a company announces in its earnings release rather than its statements."""


@dataclass(frozen=True)
class FilingAsked:
    """The period and form a question asks about; empty fields when it names none."""

    years: tuple[int, ...] = ()
    """Fiscal or calendar years named, in order of appearance."""
    quarter: int = 0
    """1-4 when a quarter is named (a half counts as its last quarter: H1 -> 2)."""
    event_date: str = ""
    """ISO date of a dated event ("dated 1st July 2022", "on May 26, 2023")."""
    forms: tuple[str, ...] = ()
    """Forms named or implied, strongest first."""
    ahead: bool = False
    """Whether the question looks ahead (forecast, expected, guidance for a year)."""

    @property
    def year(self) -> int:
        """Return the latest year named: a comparison's current year, a span's last one."""
        return max(self.years) if self.years else 0


@lru_cache(maxsize=512)
def read_question(question: str) -> FilingAsked:
    """Return the period and form a question asks about (cached: read once per question)."""
    years = [full_year(m) for m in FISCAL_YEAR.findall(question)]
    years += [full_year(m[2]) for m in _QUARTER_YEAR.findall(question)]
    years += [int(m) for m in CALENDAR_YEAR.findall(question)]
    quarter = _quarter(question)
    event = event_date(question)
    if event and _period_end(question, event):
        event = None  # a balance-sheet date, not an event an 8-K reports
    forms = [form for form, pattern in _FORM_NAMES if pattern.search(question)]
    if event and "8-K" not in forms:
        forms.append("8-K")
    if _RELEASE_WORDS.search(question) and "earnings release" not in forms:
        forms.append("earnings release")
    return FilingAsked(
        tuple(dict.fromkeys(years)),
        quarter,
        event.isoformat() if event else "",
        tuple(forms),
        bool(_AHEAD.search(question)),
    )


def _period_end(question: str, day: date) -> bool:
    """Tell whether a date the question names is a period end: a month's last day, "as of"."""
    return (day + timedelta(days=1)).day == 1 and bool(_PERIOD_END_CUE.search(question))


def _quarter(question: str) -> int:
    if found := _QUARTER_YEAR.search(question):
        return int(found.group(1) or found.group(2))
    if found := _QUARTER.search(question):
        digit = found.group(1) or found.group(2) or found.group(3)
        return int(digit) if digit else QUARTER_WORDS.index(found.group(4).lower()) + 1
    if found := _HALF.search(question):
        half = found.group(1) or ("1" if found.group(2).lower() == "first" else "2")
        return 2 * int(half)
    return 0
