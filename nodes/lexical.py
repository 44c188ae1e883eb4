"""Word-level checks the offline decisions use: content words, crude stems, coverage."""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
STEM_CHARS = 5
"""Words sharing their first five letters count as one ("attendees" ~ "attendance")."""
STOPWORDS = frozenset(
    "a an the of in on at to for from by with and or but is are was were be been being do does "
    "did has have had what which who whom whose when where why how that this these those it its "
    "as into than then there their they he she his her him them both either same more less "
    "most least also any all not no s".split()
)


def content_words(text: str) -> list[str]:
    """Return the lowercased words of text that are not stopwords, in order, once each."""
    words = (m.lower() for m in _WORD.findall(text))
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


def stems(words: Iterable[str]) -> set[str]:
    """Return crude prefix stems of words."""
    return {w[:STEM_CHARS] for w in words}


def coverage(query: str, evidence: str) -> float:
    """Return the share of the query's content words whose stem occurs in the evidence."""
    wanted = stems(content_words(query))
    if not wanted:
        return 1.0
    return len(wanted & stems(content_words(evidence))) / len(wanted)
