"""Candidate answer spans in a sentence: dates, years, numbers, names and noun phrases.

Spans are found by surface rules (month names, four-digit years, digits with scale
words, runs of capitalised words joined by "of/de/von", runs of content words), each
tagged with a kind the reader matches against the question's answer type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from nodes.core.answer_types import CONNECTORS, tokens
from nodes.core.lexical import STOPWORDS
from tools.values import STATED_DATE, STATED_NUMBER, YEAR


@dataclass(frozen=True)
class Evidence:
    """One top-ranked component as the reader sees it: sentences or a table, and its rank."""

    rank: int
    title: str
    sentences: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


SpanKind = Literal["date", "year", "number", "name", "phrase"]

_LEADING_FUNCTION_WORDS = frozenset(
    "a an the in on at it he she his her its this that these those they their there "
    "after before during since from for by with as but and or when while although".split()
)
MAX_NAME_WORDS = 6
MAX_PHRASE_WORDS = 4


@dataclass(frozen=True)
class Span:
    """A candidate answer: its text, kind and token positions [start, end) in its sentence."""

    text: str
    kind: SpanKind
    start: int
    end: int


def sentence_spans(sentence: str, words: list[str] | None = None) -> list[Span]:
    """Return every candidate span of one sentence (dates and numbers first, then words)."""
    words = tokens(sentence) if words is None else words
    spans = _pattern_spans(sentence, words)
    taken = {i for span in spans for i in range(span.start, span.end)}
    spans += [s for s in name_spans(words) if not taken & set(range(s.start, s.end))]
    spans += _phrase_spans(words)
    return spans


def _pattern_spans(sentence: str, words: list[str]) -> list[Span]:
    """Return the dates, years and numbers of a sentence as token spans."""
    starts = _token_offsets(sentence, words)
    found: list[Span] = []
    claimed: set[int] = set()
    for pattern, kind in ((STATED_DATE, "date"), (YEAR, "year"), (STATED_NUMBER, "number")):
        for match in pattern.finditer(sentence):
            covered = [i for i, at in enumerate(starts) if match.start() <= at < match.end()]
            if not covered or claimed & set(covered):
                continue
            claimed.update(covered)
            found.append(Span(match.group().strip(), kind, covered[0], covered[-1] + 1))  # type: ignore[arg-type]
    return found


def _token_offsets(sentence: str, words: list[str]) -> list[int]:
    """Return the character offset of each token in the sentence."""
    offsets, cursor = [], 0
    for word in words:
        cursor = sentence.find(word, cursor)
        offsets.append(cursor)
        cursor += len(word)
    return offsets


def name_spans(words: list[str]) -> list[Span]:
    """Return runs of capitalised words (inner connectors allowed), leading function words cut."""
    spans, at = [], 0
    while at < len(words):
        if not _capitalised(words[at]):
            at += 1
            continue
        end = at + 1
        while end < len(words) and (
            _capitalised(words[end])
            or (
                words[end].lower() in CONNECTORS
                and end + 1 < len(words)
                and _capitalised(words[end + 1])
            )
        ):
            end += 1
        start = at
        while start < end and words[start].lower() in _LEADING_FUNCTION_WORDS:
            start += 1
        if start < end and end - start <= MAX_NAME_WORDS:
            spans.append(Span(" ".join(words[start:end]), "name", start, end))
        at = end
    return spans


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _phrase_spans(words: list[str]) -> list[Span]:
    """Return runs of lowercase content words (noun-phrase-like), at most MAX_PHRASE_WORDS."""
    spans, at = [], 0
    while at < len(words):
        end = at
        while end < len(words) and _content(words[end]):
            end += 1
        if end > at:
            start = max(at, end - MAX_PHRASE_WORDS)
            spans.append(Span(" ".join(words[start:end]), "phrase", start, end))
            at = end
        else:
            at += 1
    return spans


def _content(word: str) -> bool:
    return word[:1].isalpha() and word.islower() and word not in STOPWORDS


def cell_kind(cell: str) -> SpanKind:
    """Return the kind of a whole table cell: a date, year, number, name or phrase."""
    text = cell.strip()
    for pattern, kind in ((STATED_DATE, "date"), (YEAR, "year"), (STATED_NUMBER, "number")):
        if pattern.fullmatch(text):
            return kind  # type: ignore[return-value]
    return "name" if _capitalised(text) else "phrase"


def first_value(text: str, kind: SpanKind) -> float | None:
    """Return the first year (kind "year") or the first other number of a text, else None."""
    if kind == "year":
        match = YEAR.search(text)
        return float(match.group()) if match else None
    for match in STATED_NUMBER.finditer(text):
        if not YEAR.fullmatch(match.group()):
            number = re.match(r"\$?([\d,]+(?:\.\d+)?)", match.group())
            if number:
                return float(number.group(1).replace(",", ""))
    return None
