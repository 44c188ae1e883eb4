"""What a question asks for: its answer type, the options it names, the order it compares by.

Rules over English question words only (the wh-word and the noun after "what/which"),
so the offline reader can prefer a date for "when", a number for "how many", a name for
"who", one of the two named options for "A or B?", and yes/no for "Is ...?".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from nodes.core.lexical import STOPWORDS
from nodes.core.order_words import ORDER_WORDS, OrderWord
from tools.sparse_index import stem_words

AnswerKind = Literal["yesno", "choice", "date", "year", "number", "person", "place", "entity"]
Order = Literal["min_year", "max_year", "max_number", "min_number"]

WORD = re.compile(r"\w+(?:[-'’.]\w+)*|[^\w\s]")
"""A token: a word (with inner hyphens, apostrophes or dots) or one punctuation mark."""

_AUXILIARIES = frozenset(
    "is are was were do does did can could has have had will would should may might".split()
)
_WH = frozenset("what which who whom whose when where how name".split())
_YEAR_NOUNS = frozenset("year years".split())
_DATE_NOUNS = frozenset("date day month century decade era".split())
_OPEN_WH = frozenset("what which when where how".split())
"""Wh-words that make an auxiliary-first question open ("Do X, released in which year?")."""
_PREPOSITIONS = frozenset("in on at from for by to of during since with after".split())
_NUMBER_NOUNS = frozenset(
    "population number amount percentage percent capacity age height length size total".split()
)
_PLACE_NOUNS = frozenset(
    "city town country state county province region location place village capital island "
    "continent nation district area borough municipality neighborhood suburb".split()
)
_REGION_NOUNS = frozenset("state country province region nation county continent".split())
_PERSON_NOUNS = frozenset(
    "person man woman men women actor actress singer director player author writer "
    "artist musician composer producer politician president king queen founder "
    "coach rapper poet painter footballer son daughter father mother wife husband".split()
)
_ORDER_PRECEDENCE: tuple[Order, ...] = ("min_year", "max_year", "max_number", "min_number")
"""When a question uses words of several orders, the first of these it uses wins."""
_HEAD_WINDOW = 4
_NOUN_KINDS: tuple[tuple[frozenset[str], AnswerKind], ...] = (
    (_YEAR_NOUNS, "year"),
    (_DATE_NOUNS, "date"),
    (_NUMBER_NOUNS, "number"),
    (_PLACE_NOUNS, "place"),
    (_PERSON_NOUNS, "person"),
)
"""Tokens after "what/which" searched for the noun that names the answer type."""


@dataclass(frozen=True)
class QuestionShape:
    """The answer a question wants: its kind, the options it names, how it compares them."""

    kind: AnswerKind
    options: tuple[str, ...] = ()
    order: Order | None = None
    pivot: tuple[str, ...] = ()
    """The words the answer should follow in a text ("founded by who?" → founded, by)."""
    region: bool = False
    """A place question asks for a state, country or region, not a city or town."""


def tokens(text: str) -> list[str]:
    """Return the words and punctuation marks of a text, in order."""
    return WORD.findall(text)


def content_tokens(text: str) -> list[str]:
    """Return the lowercased content words of a text (no stopwords or punctuation), in order."""
    words = (t.lower() for t in tokens(text))
    return [w for w in words if w[:1].isalnum() and w not in STOPWORDS]


def content_stems(text: str) -> set[str]:
    """Return the stems of a text's content words."""
    return set(stem_words(content_tokens(text)))


def question_shape(question: str) -> QuestionShape:
    """Return the kind of answer a question asks for (and its options when it names two)."""
    words = [w.lower() for w in tokens(question)]
    options = choice_options(question)
    if len(options) == 2:
        return QuestionShape("choice", options, comparison_order(words))
    if words and words[0] in _AUXILIARIES and not _OPEN_WH & set(words):
        return QuestionShape("yesno")
    kind = _wh_kind(words)
    region = kind == "place" and bool(set(words) & _REGION_NOUNS)
    return QuestionShape(kind, pivot=_pivot(words), region=region)


def _pivot(words: list[str]) -> tuple[str, ...]:
    """Return the words an answer follows in a text.

    That is "<word> <preposition>" before a trailing wh-word ("founded by who?"), or
    "<verb> by" after a leading "Who <verb>" (the passive a text states it in).
    """
    at = _asking_wh(words)
    if at is None:
        return ()
    if at == 0 and words[0] == "who" and len(words) > 1 and words[1] not in _AUXILIARIES:
        return (words[1], "by")
    before = words[max(at - 2, 0) : at]
    if len(before) == 2 and before[1] in _PREPOSITIONS and before[0][:1].isalpha():
        return tuple(before)
    return ()


def _asking_wh(words: list[str]) -> int | None:
    """Return the position of the wh-word that asks, not one that is a relative pronoun.

    In order: a leading wh-word ("In what year ..."), one that ends the question ("created by
    who?"), the first "what" or "how" (rarely relative), else the last wh-word ("a consultant
    who has worked with the mayor of which city?").
    """
    leading = 1 if words and words[0] in _PREPOSITIONS else 0
    if len(words) > leading and words[leading] in _WH:
        return leading
    ending = [w for w in words if w[:1].isalnum()]
    if ending and ending[-1] in _WH:
        return len(words) - 1 - words[::-1].index(ending[-1])
    for at, word in enumerate(words):
        if word in ("what", "how"):
            return at
    found = [at for at, word in enumerate(words) if word in _WH]
    return found[-1] if found else None


def _wh_kind(words: list[str]) -> AnswerKind:
    """Return the answer kind named by the asking wh-word (and the noun after it)."""
    at = _asking_wh(words)
    if at is not None:
        word = words[at]
        after = words[at + 1 : at + 1 + _HEAD_WINDOW]
        if word == "when":
            return "date"
        if word == "where":
            return "place"
        if word in ("who", "whom", "whose"):
            return "person"
        if word == "how":
            return "number" if after and after[0] in ("many", "much", "old", "long") else "entity"
        for noun in after:  # the first noun that names a type ("which player wore number 1")
            for nouns, kind in _NOUN_KINDS:
                if noun in nouns:
                    return kind
    return "entity"


def comparison_order(words: list[str]) -> Order | None:
    """Return how a comparison question orders its options ("first" → the earliest year)."""
    used = {_order(ORDER_WORDS[word]) for word in words if word in ORDER_WORDS}
    return next((order for order in _ORDER_PRECEDENCE if order in used), None)


def _order(word: OrderWord) -> Order:
    """Return a comparison's order from its word: by year for dates, else by number."""
    orders: dict[tuple[str, str], Order] = {
        ("min", "date"): "min_year",
        ("max", "date"): "max_year",
        ("min", "number"): "min_number",
        ("max", "number"): "max_number",
    }
    return orders[(word.direction, word.kind)]


def choice_options(question: str) -> tuple[str, ...]:
    """Return the two options of an "A or B" question, else ().

    Each side is cut at the nearest comma (or the question's verb phrase) and narrowed to
    its trailing run of capitalised words when it has one ("the birth of Robert Young" →
    "Robert Young").
    """
    body = question.strip().rstrip("?").strip()
    if body.count(" or ") != 1:
        return ()
    left, right = body.split(" or ")
    left = left.rsplit(",", 1)[-1]
    right = right.split(",", 1)[0]
    options = tuple(_narrow(side) for side in (left, right))
    return options if all(options) else ()


def _narrow(side: str) -> str:
    """Return the trailing capitalised run of one side of "A or B", else the side itself."""
    words = side.split()
    run: list[str] = []
    for word in reversed(words):
        if word[:1].isupper() or word[:1].isdigit() or (run and word.lower() in CONNECTORS):
            run.insert(0, word)
        else:
            break
    while run and run[0] in CONNECTORS:  # "the Cotula" → "Cotula", "The Exies" stays
        run.pop(0)
    if run and not (len(run) == 1 and run[0].lower() in _WH):
        return " ".join(run)
    trimmed = [w for w in words if w.lower() not in _WH]
    return " ".join(trimmed[-_HEAD_WINDOW:])


CONNECTORS = frozenset("of the de del der di da du von van la le y".split())
"""Lowercase words that may sit inside a name ("University of Oxford", "Vincent van Gogh")."""
