"""Superlatives over a table: the row "the team with the least capacity" is about.

A question that picks a record by an extreme value ("the tallest player who left",
"the song with the fewest sales", "the second most points", "the earliest airing date")
names no word the right row holds, so cosine and BM25 choose among the rows at random.
The superlative is read from the question (its direction, whether it orders numbers or
dates, its rank: "second most"), its column from the table's header (the words after the
superlative, or those it implies: "tallest" a height, "youngest" a birth date; a date
superlative without one takes the table's date or year column), and the rows holding
that column's extreme value are the ones the question is about (`superlative_rows`); the
question rule `nodes.core.question_rules.superlative_rule` lifts them.
Filters the question adds ("the latest album she *won* a Grammy for") are not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from nodes.core.lexical import STOPWORDS
from nodes.core.order_words import ORDER_WORDS, Direction, ValueKind
from tools.layered_graph import LayeredGraph
from tools.sparse_index import terms
from tools.values import date_value, number_value, ordinal_rank


@dataclass(frozen=True)
class Superlative:
    """What a superlative orders rows by."""

    direction: Direction
    kind: ValueKind
    column_words: frozenset[str]
    """Stemmed terms that name its column (the words after it, or those it implies)."""
    rank: int
    """1 for "the most", 2 for "the second most", 9 for "the 9th-most"."""


_RECENT = "recent"
""""most recent": the latest date."""
_AFTER = 3
"""Content words after the superlative that may name its column."""
_DATE_HEADERS = frozenset(terms("date year born birth founded established season"))
_PARSED_SHARE = 0.5
"""A column orders rows only if this share of its cells holds a value of the kind."""

_WORD = re.compile(r"[\w']+")


@lru_cache(maxsize=256)
def read_superlative(question: str) -> Superlative | None:
    """Return the question's first superlative, or None (cached: every row scoring asks)."""
    words = [word.lower() for word in _WORD.findall(question)]
    for position, word in enumerate(words):
        order = ORDER_WORDS.get(word)
        if order is None or not order.superlative:
            continue
        direction, kind, implied = order.direction, order.kind, order.implies
        after = [w for w in words[position + 1 :] if w not in STOPWORDS][:_AFTER]
        if word == "most" and after[:1] == [_RECENT]:
            direction, kind, after = "max", "date", after[1:]
        rank = _rank(words[position - 1]) if position else 1
        named = terms(" ".join(after)) | terms(implied)
        return Superlative(direction, kind, frozenset(named), rank)
    return None


def _rank(word: str) -> int:
    """Return the rank an ordinal before a superlative names ("second", "9th"), else 1."""
    return ordinal_rank(word) or 1


def cell_value(cell: str, kind: ValueKind) -> tuple[float, ...] | None:
    """Return a cell's value as a sortable tuple: a number, or (year, month, day)."""
    if kind == "number":
        number = number_value(cell)
        return None if number is None else (number,)
    return date_value(cell)


def order_column(
    header: Sequence[str], rows: Sequence[Sequence[str]], superlative: Superlative
) -> int | None:
    """Return the column a superlative orders the table's rows by, or None.

    The header sharing most of its words; for a date superlative without one, the single
    date-named column (a date, a year, a birth). Either must hold values of its kind.
    """
    named = [(len(terms(head) & superlative.column_words), i) for i, head in enumerate(header)]
    best = max((n for n, _ in named), default=0)
    columns = [i for n, i in named if best and n == best]
    if not columns and superlative.kind == "date":
        columns = [i for i, head in enumerate(header) if terms(head) & _DATE_HEADERS]
    valued = [i for i in columns if _parsed_share(rows, i, superlative.kind) >= _PARSED_SHARE]
    return valued[0] if len(valued) == 1 else None


def column_values(
    rows: Sequence[Sequence[str]], column: int, kind: ValueKind
) -> dict[int, tuple[float, ...]]:
    """Return {row order: value} for the rows whose cell in `column` holds a value of `kind`."""
    cells = {order: row[column] for order, row in enumerate(rows) if column < len(row)}
    values = {order: cell_value(cell, kind) for order, cell in cells.items()}
    return {order: value for order, value in values.items() if value is not None}


def _parsed_share(rows: Sequence[Sequence[str]], column: int, kind: ValueKind) -> float:
    cells = sum(column < len(row) for row in rows)
    return len(column_values(rows, column, kind)) / cells if cells else 0.0


def superlative_rows(graph: LayeredGraph, superlative: Superlative, table: str) -> list[int]:
    """Return the orders of the table's rows holding the value a superlative picks.

    [] when the table has no column the superlative orders by.
    """
    attrs = graph.node(table).attrs
    header = [str(h) for h in attrs.get("header", [])]
    rows = [[str(cell) for cell in row] for row in attrs.get("rows", [])]
    column = order_column(header, rows, superlative)
    if column is None:
        return []
    values = column_values(rows, column, superlative.kind)
    ordered = sorted(set(values.values()), reverse=superlative.direction == "max")
    if len(ordered) < superlative.rank:
        return []
    target = ordered[superlative.rank - 1]
    return [order for order, value in values.items() if value == target]


def superlative_nodes(
    graph: LayeredGraph, superlative: Superlative, nodes: Sequence[str]
) -> set[str]:
    """Return the table rows among `nodes` holding the value a superlative picks."""
    by_table: dict[str, list[str]] = {}
    for node in nodes:
        view = graph.node(node)
        if view.kind == "row":
            by_table.setdefault(str(view.attrs["component_id"]), []).append(node)
    picked: set[str] = set()
    for table, rows in by_table.items():
        orders = set(superlative_rows(graph, superlative, table))
        picked.update(row for row in rows if int(graph.node(row).attrs.get("order", -1)) in orders)
    return picked
