"""Read the question once: what it names, the values it states and the answer it wants.

Every question-specific rule reads this one analysis instead of parsing the question
again with a private pattern: the readers its expected answer (`answer`), FiF's row rules
its superlative (`nodes.core.question_rules`), the planner its comparison, the filing
rules its period. A run computes it once and keeps it in its state (`as_state`), so a
replay or a fork reads what the run read (`from_state`).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from nodes.core.answer_types import QuestionShape, question_shape, tokens
from nodes.core.lexical import STOPWORDS, content_words
from nodes.core.span_candidates import name_spans
from nodes.core.superlatives import Superlative, read_superlative
from tools.filing_query import FilingAsked, read_question
from tools.values import STATED_DATE, YEAR, digit_numbers, ordinal_rank


@dataclass(frozen=True)
class QuestionAnalysis:
    """One question, read once."""

    text: str
    terms: tuple[str, ...]
    """Its content words, lowercased, in order, once each."""
    entities: tuple[str, ...]
    """Runs of capitalised words it names ("Robert Young", "University of Oxford")."""
    numbers: tuple[str, ...]
    """The numbers it states, without thousands separators."""
    years: tuple[int, ...]
    """The four-digit years it states."""
    dates: tuple[str, ...]
    """The dates it states as written ("2 June 1961", "the 1990s")."""
    ordinals: tuple[int, ...]
    """The ranks its ordinals name ("second" -> 2, "9th" -> 9)."""
    answer: QuestionShape
    """The answer it wants: kind, the options of "A or B", the order a comparison asks."""
    superlative: Superlative | None
    """The extreme value it picks a record by ("the least capacity"), if any."""
    period: FilingAsked
    """The fiscal period and filing form it asks about, if any."""

    @property
    def compares(self) -> bool:
        """Tell whether it asks yes or no, or to choose between named options."""
        return self.answer.kind in ("yesno", "choice")

    def as_state(self) -> dict[str, Any]:
        """Return the analysis as plain data for a run's checkpointed state."""
        return _plain(dataclasses.asdict(self))

    @classmethod
    def from_state(cls, data: Mapping[str, Any]) -> QuestionAnalysis:
        """Return the analysis a run's state holds (the inverse of `as_state`)."""
        return _rebuild(cls, data)


@lru_cache(maxsize=512)
def analyze_question(question: str) -> QuestionAnalysis:
    """Return the analysis of a question (cached: subqueries are read as questions too)."""
    words = tokens(question)
    ranks = (ordinal_rank(word) for word in words)
    return QuestionAnalysis(
        text=question,
        terms=tuple(content_words(question)),
        entities=_entities(words),
        numbers=tuple(digit_numbers(question)),
        years=tuple(int(year) for year in YEAR.findall(question)),
        dates=tuple(match.group() for match in STATED_DATE.finditer(question)),
        ordinals=tuple(rank for rank in ranks if rank is not None),
        answer=question_shape(question),
        superlative=read_superlative(question),
        period=read_question(question),
    )


def analysis_in(state: Mapping[str, Any], key: str = "analysis") -> QuestionAnalysis:
    """Return the analysis a state keeps, or read the state's question when it keeps none."""
    stored = state.get(key)
    return QuestionAnalysis.from_state(stored) if stored else analyze_question(state["question"])


def _entities(words: list[str]) -> tuple[str, ...]:
    """Return the capitalised runs of a question, without an opening question word ("Who")."""
    found = []
    for span in name_spans(words):
        names = span.text.split()
        while names and names[0].lower() in STOPWORDS:
            names.pop(0)
        if names:
            found.append(" ".join(names))
    return tuple(dict.fromkeys(found))


def _plain(value: Any) -> Any:
    """Return a value with sets and tuples as sorted or ordered lists (checkpoint-safe)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _rebuild(cls: type, data: Mapping[str, Any]) -> Any:
    """Return a dataclass from plain data, nested dataclasses, tuples and frozensets too."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    return cls(**{field.name: _typed(hints[field.name], data[field.name]) for field in fields})


def _typed(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    for option in typing.get_args(hint) if union else (hint,):  # X | None tries X
        origin = typing.get_origin(option) or option
        if (
            isinstance(origin, type)
            and dataclasses.is_dataclass(origin)
            and isinstance(value, Mapping)
        ):
            return _rebuild(origin, value)
        if origin is tuple:
            return tuple(value)
        if origin is frozenset:
            return frozenset(value)
    return value
