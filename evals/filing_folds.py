"""Fixed company folds of financebench-dev, for tuning on some companies and reporting on others.

A question belongs to the company of its filing: FinanceBench names a filing
`COMPANY_YEAR[PERIOD]_FORM` (`JOHNSON_JOHNSON_2022_10K`), so the company is the name before
the first `_YEAR`. The 13 companies were dealt once, largest first, to the fold with the
fewest questions (ties to the first fold), and the result is fixed here: 23 / 24 / 23
questions. A rule or weight is chosen on two folds and reported on the third (three
rounds); a company's questions never sit on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

FOLDS: dict[str, tuple[str, ...]] = {
    "A": ("PEPSICO", "MGMRESORTS", "NIKE", "AMD"),
    "B": ("JOHNSON_JOHNSON", "AMERICANEXPRESS", "CORNING", "ULTABEAUTY"),
    "C": ("AMCOR", "BOEING", "CVSHEALTH", "NETFLIX", "KRAFTHEINZ"),
}
"""Fold name -> FinanceBench company keys (dev questions: A 23, B 24, C 23)."""

_COMPANY = re.compile(r"^(.+?)_(?:19|20)\d{2}")


def company_of(doc_id: str) -> str:
    """Return the company key of a FinanceBench filing name ('' when it has none)."""
    found = _COMPANY.match(doc_id)
    return found.group(1) if found else ""


def fold_of(doc_ids: Sequence[str]) -> str:
    """Return the fold of a question from its filings ('' for a company in no fold)."""
    for doc_id in doc_ids:
        company = company_of(doc_id)
        for fold, companies in FOLDS.items():
            if company in companies:
                return fold
    return ""


def rounds() -> Iterable[tuple[tuple[str, ...], str]]:
    """Yield (tuning folds, held-out fold) for each of the three rounds."""
    names = tuple(FOLDS)
    for held_out in names:
        yield tuple(name for name in names if name != held_out), held_out
