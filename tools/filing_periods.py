"""Dates and fiscal periods as filings and questions write them.

General reporting conventions, no company's calendar: a fiscal year is named after the
calendar year it ends in, except a 52/53-week year that ends in the first days of January
or a retailer's year that ends in late January or the first week of February, which is
named after the year it mostly covers (fiscal 2022 ended January 1, 2023). A 10-Q's
statements run "three months ended" (first quarter), "six months ended" (second) or "nine
months ended" (third); the fourth quarter has no 10-Q.
"""

from __future__ import annotations

from datetime import date

_YEAR_END_SPILL_DAYS = 7
"""A fiscal year ending this many days into a year belongs to the year before."""


def fiscal_year_of_end(end: date, quarter: int = 0) -> int:
    """Return the fiscal year a period ending on `end` belongs to.

    Args:
        end: The last day of the period.
        quarter: The period's fiscal quarter (1-3 for a 10-Q), 0 for a full year.
    """
    months = end.month + 3 * (4 - quarter) if quarter else end.month
    year = end.year + (months - 1) // 12
    month = (months - 1) % 12 + 1
    early_january = month == 1 and end.day <= _YEAR_END_SPILL_DAYS
    retail = (month == 1 and end.day > 20) or (month == 2 and end.day <= _YEAR_END_SPILL_DAYS)
    return year - 1 if early_january or retail else year


def fiscal_quarter_of_10q(text: str) -> int:
    """Return a quarterly report's fiscal quarter from the spans its statements cover."""
    lowered = text.lower()
    if "nine months ended" in lowered:
        return 3
    if "six months ended" in lowered or "twenty-six weeks" in lowered:
        return 2
    return 1
