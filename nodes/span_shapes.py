"""How much a candidate span looks like an answer, beyond its kind.

A name used as a modifier ("American basic cable"), a possessive ("Aristotle's"), an
acronym or the subject of its own page is rarely the answer; a place may be "City, State";
a lifespan "(15 June 1924 – 24 April 2005)" says born and died without those words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.answer_types import AnswerKind
from nodes.lexical import STOPWORDS
from nodes.span_candidates import YEAR_IN, Span
from tools.sparse_index import stem_words

MODIFIER_FACTOR = 0.4
"""A name followed by a lowercase content word modifies it ("South Korean singer")."""
POSSESSIVE_FACTOR = 0.3
ACRONYM_FACTOR = 0.5
SINGLE_WORD_PERSON_FACTOR = 0.6
"""A person is usually named with a first and last name."""
OWN_TITLE_FACTOR = 0.3
"""A page's own subject is what the question asks about, rarely what it asks for."""
OTHER_TITLE_FACTOR = 0.6
"""Another top page's subject is often the bridge entity of a multi-hop question."""
JOINED_PLACE_BONUS = 1.2
"""A "City, State" pair over its city alone, for a city question."""
CITY_FACTOR = 0.5
"""The city of a "City, State" pair, for a state or country question."""
_DASHES = frozenset("-–—")
_BORN, _DIED = stem_words(["born", "died"])


def plain(title: str) -> str:
    """Return a title lowercased without its parenthesised qualifier ("Lilu (mythology)")."""
    return " ".join(title.split("(")[0].lower().split())


@dataclass(frozen=True)
class Seen:
    """What the reader knows around a sentence: the question's stems and the page titles."""

    asked: set[str]
    relation: set[str]
    """Stems of the question's lowercase content words: the relation it asks about."""
    own_title: str
    other_titles: set[str]

    def title_factor(self, text: str) -> float:
        """Return how much a name is discounted for being a top page's subject."""
        name = plain(text)
        if name == self.own_title:
            return OWN_TITLE_FACTOR
        return OTHER_TITLE_FACTOR if name in self.other_titles else 1.0


def name_factor(span: Span, words: Sequence[str], kind: AnswerKind) -> float:
    """Return how much a name span looks like a standalone answer (1.0 when it does)."""
    factor = 1.0
    after = words[span.end] if span.end < len(words) else ""
    if after[:1].isalpha() and after.islower() and after not in STOPWORDS:
        factor *= MODIFIER_FACTOR
    if after in ("'s", "’s") or span.text.endswith(("'s", "’s")) or after in ("'", "’"):
        factor *= POSSESSIVE_FACTOR
    letters = [c for c in span.text if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        factor *= ACRONYM_FACTOR
    if kind == "person" and span.end - span.start == 1:
        factor *= SINGLE_WORD_PERSON_FACTOR
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


def place_factor(span: Span, words: Sequence[str], region: bool) -> float:
    """Return how well a name fits a place question, read from "City, Region" pairs.

    The joined pair is the fullest answer to a city question; for a state or country
    question the part before the comma (and so the pair) is the city, so it counts less.
    """
    if ", " in span.text:
        return CITY_FACTOR if region else JOINED_PLACE_BONUS
    before_comma = span.end < len(words) - 1 and words[span.end] == ","
    return CITY_FACTOR if region and before_comma and words[span.end + 1][:1].isupper() else 1.0


def answer_text(span: Span, kind: AnswerKind) -> str:
    """Return the span's answer text: only the year of a date when the question asks a year."""
    if kind == "year" and span.kind == "date":
        match = YEAR_IN.search(span.text)
        if match:
            return match.group()
    return span.text
