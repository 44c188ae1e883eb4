"""Title mentions: find documents named in a text (implicit links, entity lookup in questions).

Titles lose a trailing parenthetical ("Lilu (mythology)" → "Lilu") and are matched
case-sensitively on word boundaries, by looking up word n-grams in a dictionary, so the
cost grows with the text, not with the number of titles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from state.corpus import Subcomponent

_WORDS = re.compile(r"\w+(?:[-'’]\w+)*")
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")
MIN_TITLE_CHARS = 3
MAX_TITLE_WORDS = 8
MAX_DOCS_PER_TITLE = 3
"""A base title shared by more documents than this is too ambiguous to link."""


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(text))


def title_index(titles: Iterable[tuple[str, str]]) -> dict[tuple[str, ...], list[str]]:
    """Map the word tuple of every usable base title to the documents carrying it.

    `titles` yields (doc_id, title) pairs.
    """
    index: dict[tuple[str, ...], list[str]] = {}
    for doc_id, title in titles:
        base = _PARENTHETICAL.sub("", title).strip()
        words = _words(base)
        if not words or len(base) < MIN_TITLE_CHARS or len(words) > MAX_TITLE_WORDS:
            continue
        if len(words) == 1 and not words[0][0].isupper():
            continue
        index.setdefault(words, []).append(doc_id)
    return {key: docs for key, docs in index.items() if len(docs) <= MAX_DOCS_PER_TITLE}


def mentioned_docs(text: str, index: dict[tuple[str, ...], list[str]]) -> list[str]:
    """Return the documents whose base title occurs in text, longest match first per position."""
    words = _words(text)
    found: dict[str, None] = {}
    position = 0
    while position < len(words):
        for size in range(min(MAX_TITLE_WORDS, len(words) - position), 0, -1):
            docs = index.get(words[position : position + size])
            if docs:
                found.update(dict.fromkeys(docs))
                position += size - 1
                break
        position += 1
    return list(found)


def mention_links(
    sentences: Iterable[Subcomponent], index: dict[tuple[str, ...], list[str]]
) -> list[tuple[str, str]]:
    """Return (sentence id, doc id) pairs for titles mentioned in other documents' sentences."""
    pairs = []
    for sentence in sentences:
        for doc in mentioned_docs(sentence.text, index):
            if doc != sentence.doc_id:
                pairs.append((sentence.subcomponent_id, doc))
    return pairs
