"""How much a candidate span looks like an answer, beyond its kind.

A name used as a modifier ("American basic cable"), a possessive ("Aristotle's"), an
acronym or the subject of its own page is rarely the answer; a place may be "City, State";
a lifespan "(15 June 1924 – 24 April 2005)" says born and died without those words.
How much each counts is a `ReaderTuning` value (state/reader_tuning.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.core.answer_types import AnswerKind
from nodes.core.lexical import STOPWORDS
from nodes.core.span_candidates import Span
from state.reader_tuning import ReaderTuning
from tools.sparse_index import stem_words
from tools.values import YEAR

_DASHES = frozenset("-–—")
_BORN, _DIED = stem_words(["born", "died"])


def plain(title: str) -> str:
    """Return a title lowercased without its parenthesised qualifier ("Lilu (mythology)")."""
    return " ".join(title.split("(")[0].lower().split())


@dataclass(frozen=True)
class Seen:
    """What the reader knows around a sentence: question stems, page titles and its tuning."""

    asked: set[str]
    relation: set[str]
    """Stems of the question's lowercase content words: the relation it asks about."""
    own_title: str
    other_titles: set[str]
    tuning: ReaderTuning

    def title_factor(self, text: str) -> float:
        """Return how much a name is discounted for being a top page's subject."""
        name = plain(text)
        if name == self.own_title:
            return self.tuning.own_title_factor
        return self.tuning.other_title_factor if name in self.other_titles else 1.0


def name_factor(span: Span, words: Sequence[str], kind: AnswerKind, tuning: ReaderTuning) -> float:
    """Return how much a name span looks like a standalone answer (1.0 when it does)."""
    factor = 1.0
    after = words[span.end] if span.end < len(words) else ""
    if after[:1].isalpha() and after.islower() and after not in STOPWORDS:
        factor *= tuning.modifier_factor
    if after in ("'s", "’s") or span.text.endswith(("'s", "’s")) or after in ("'", "’"):
        factor *= tuning.possessive_factor
    letters = [c for c in span.text if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        factor *= tuning.acronym_factor
    if kind == "person" and span.end - span.start == 1:
        factor *= tuning.single_word_person_factor
    return factor


def token_marks(words: Sequence[str], spans: Sequence[Span]) -> list[set[str]]:
    """Return each token's stems, with "born"/"died" added to the two ends of a lifespan."""
    marks = [{stem} for stem in stem_words(list(words))]
    dated = sorted((s for s in spans if s.kind in ("date", "year")), key=lambda s: s.start)
    for first, second in zip(dated, dated[1:], strict=False):
        between = words[first.end : second.start]
        if between and all(word in _DASHES for word in between):
            # just outside the pair (a cue inside a span does not bring it near): "(" and ")"
            marks[max(first.start - 1, 0)].add(_BORN)
            marks[min(second.end, len(marks) - 1)].add(_DIED)
    return marks


def joined_places(spans: Sequence[Span], words: Sequence[str]) -> list[Span]:
    """Return "City, State" spans: two names separated by a single comma."""
    names = {s.start: s for s in spans if s.kind == "name"}
    joined = []
    for first in names.values():
        second = names.get(first.end + 1)
        if second and words[first.end] == ",":
            joined.append(Span(f"{first.text}, {second.text}", "name", first.start, second.end))
    return joined


def place_factor(span: Span, words: Sequence[str], region: bool, tuning: ReaderTuning) -> float:
    """Return how well a name fits a place question, read from "City, Region" pairs.

    The joined pair is the fullest answer to a city question; for a state or country
    question the part before the comma (and so the pair) is the city, so it counts less.
    """
    if ", " in span.text:
        return tuning.city_factor if region else tuning.joined_place_bonus
    before_comma = span.end < len(words) - 1 and words[span.end] == ","
    in_pair = region and before_comma and words[span.end + 1][:1].isupper()
    return tuning.city_factor if in_pair else 1.0


def answer_text(span: Span, kind: AnswerKind) -> str:
    """Return the span's answer text: only the year of a date when the question asks a year."""
    if kind == "year" and span.kind == "date":
        match = YEAR.search(span.text)
        if match:
            return match.group()
    return span.text
