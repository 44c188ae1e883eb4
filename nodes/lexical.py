"""Word-level checks the offline decisions use: content words in order, and coverage.

Stems and stopwords come from the one analyzer the BM25 indices use (tools.sparse_index),
so "does this evidence cover the question" and BM25 retrieval agree on what a word is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tools.sparse_index import QUERY_STOPWORDS, terms

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
STOPWORDS = frozenset(QUERY_STOPWORDS)
"""Words that never count as content: the BM25 stopwords plus question words and pronouns."""


def content_words(text: str) -> list[str]:
    """Return the lowercased words of text that are not stopwords, in order, once each."""
    words = (m.lower() for m in _WORD.findall(text))
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


def stems(words: Iterable[str]) -> set[str]:
    """Return the stems of words (the analyzer's English Snowball stems)."""
    return terms(" ".join(words))


def coverage(query: str, evidence: str) -> float:
    """Return the share of the query's content terms that occur in the evidence."""
    wanted = terms(query)
    if not wanted:
        return 1.0
    return len(wanted & terms(evidence)) / len(wanted)


def numbers(text: str) -> list[str]:
    """Return the numbers a text states, without thousands separators, in order, once each."""
    return list(dict.fromkeys(n.replace(",", "") for n in _NUMBER.findall(text)))
