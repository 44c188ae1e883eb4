"""Words that order values, in one lexicon: comparatives ("older") and superlatives ("oldest").

A comparison between named options ("Which came first, A or B?") orders them by any of
these words (`nodes.core.answer_types.comparison_order`); a superlative also picks a
record out of a table ("the oldest club": `nodes.core.superlatives`), and may imply the
column it orders by ("tallest": a height).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["max", "min"]
ValueKind = Literal["number", "date"]


@dataclass(frozen=True)
class OrderWord:
    """How one word orders values."""

    direction: Direction
    kind: ValueKind
    superlative: bool = False
    """A superlative picks one record ("the oldest"); a comparative only compares."""
    implies: str = ""
    """Words naming the column a superlative orders by when it names none ("tallest")."""


def _words(text: str, direction: Direction, kind: ValueKind) -> dict[str, OrderWord]:
    return {word: OrderWord(direction, kind) for word in text.split()}


def _superlatives(text: str, direction: Direction, kind: ValueKind) -> dict[str, OrderWord]:
    return {word: OrderWord(direction, kind, superlative=True) for word in text.split()}


ORDER_WORDS: dict[str, OrderWord] = {
    **_words("first earlier older before sooner", "min", "date"),
    **_words("later last younger newer recent", "max", "date"),
    **_words("larger bigger more higher taller longer greater heavier", "max", "number"),
    **_words("smaller fewer less lower shorter", "min", "number"),
    **_superlatives("most highest largest biggest greatest maximum", "max", "number"),
    **_superlatives("least lowest smallest fewest minimum", "min", "number"),
    **_superlatives("earliest", "min", "date"),
    **_superlatives("latest newest", "max", "date"),
    "tallest": OrderWord("max", "number", True, "height"),
    "heaviest": OrderWord("max", "number", True, "weight"),
    "lightest": OrderWord("min", "number", True, "weight"),
    "longest": OrderWord("max", "number", True, "length duration"),
    "oldest": OrderWord("min", "date", True, "birth born founded established"),
    "youngest": OrderWord("max", "date", True, "birth born"),
}
"""Every ordering word a question may use, lowercase."""
