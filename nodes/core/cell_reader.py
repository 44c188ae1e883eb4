"""Table cells as answer candidates: the best-matching rows, the column the question names.

A cell scores by its kind's fit to the answer type, the share of the question its row
matches, whether the question names its column's header, and how much of it the question
does not say already. A running-number column ("No", "Rank": 1, 2, 3, ...) never answers.
A cell naming another top page is not discounted as a sentence's name is: on a table
bundle's tuning half that cost answers whose cell links to its own page. How many rows are read and
what a named column adds are `seen.tuning` values (state/reader_tuning.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from nodes.core.answer_types import QuestionShape
from nodes.core.span_candidates import SpanKind, cell_kind
from nodes.core.span_shapes import Seen

if TYPE_CHECKING:
    from nodes.core.span_candidates import Evidence

Share = Callable[[str, set[str]], float]


def cell_candidates(
    item: Evidence,
    shape: QuestionShape,
    seen: Seen,
    weight: float,
    fits: dict[SpanKind, float],
    share: Share,
    novelty: Share,
) -> list[tuple[str, float]]:
    """Return (cell text, score) for the cells of a table's best-matching rows."""
    column_bonus = seen.tuning.named_column_bonus
    named = [column_bonus if share(header, seen.asked) else 0.0 for header in item.header]
    skip = running_number_columns(item.rows)
    by_match = sorted(item.rows, key=lambda row: -share(" ".join(row), seen.asked))
    rows = by_match[: seen.tuning.table_rows]
    scored = []
    for row in rows:
        overlap = share(" ".join(row), seen.asked)
        for column, cell in enumerate(row):
            if column in skip:
                continue
            fit = fits[cell_kind(cell)] * novelty(cell, seen.asked)
            bonus = named[column] if column < len(named) else 0.0
            if fit > 0:
                scored.append((cell.strip(), weight * (0.5 + overlap) * fit * (0.5 + bonus)))
    return scored


def running_number_columns(rows: Sequence[Sequence[str]]) -> set[int]:
    """Return the columns that only count rows: integers rising from 1 by at most one."""
    width = max((len(row) for row in rows), default=0)
    found = set()
    for column in range(width):
        values = [row[column].strip() if column < len(row) else "" for row in rows]
        if not values or not all(v.isdigit() for v in values):
            continue
        numbers = [int(v) for v in values]
        steps = zip(numbers, numbers[1:], strict=False)
        if numbers[0] in (0, 1) and all(0 <= b - a <= 1 for a, b in steps):
            found.add(column)
    return found
