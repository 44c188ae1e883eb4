"""BM25's word analysis for the few texts of a query-time call, without bm25s's setup.

`bm25s.tokenize` builds a vocabulary, three progress bars and a stopword set per text on
every call (~0.3 ms however short its texts); FiF analyzes ~17 new texts a question. The
same steps here (lowercase, bm25s's token pattern, drop stopwords, stem each new word
once) give the same tokens: a unit test holds the two together, and they agreed on every
text of two dev indices (57k texts). A whole layer still goes through bm25s,
which is faster on 50k texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import Stemmer

TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
"""bm25s's default token pattern (scikit-learn's): words of two or more characters."""
STOPWORDS = "en"
"""bm25s's English stopword list (Lucene's 33 words) for the layer indices."""
STOPWORDS_EN = (
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with"
).split()
"""The words of STOPWORDS, as `bm25s.stopwords.STOPWORDS_EN` has them (a unit test compares
them): a process that never reads a sparse index then does not import bm25s and scipy."""
QUERY_STOPWORDS = sorted(
    set(STOPWORDS_EN)
    | set(
        "what which who whom whose when where why how do does did has have had been being were "
        "he she his her him its them both either same more less most least also any all than s "
        "from".split()
    )
)
"""Words that never count when checking whether a text covers a question: the index's
stopwords plus question words and pronouns, which every question has and no answer needs."""
STEM_CACHE_LIMIT = 500_000
"""Words whose stems are kept between calls (an English corpus has far fewer)."""
_stems: dict[str, str] = {}


@lru_cache(maxsize=1)
def english_stemmer() -> Stemmer.Stemmer:
    """Return the analyzer's Snowball English stemmer (PyStemmer), one per process."""
    return Stemmer.Stemmer("english")


def word_stems(texts: Sequence[str], stopwords: frozenset[str]) -> list[list[str]]:
    """Return each text's lowercased words minus `stopwords`, with their English stems.

    A word is stemmed once per process and its stem kept, so a call pays only for the
    words it is the first to meet (stemming was a third of the cost of a table's analysis).
    """
    global _stems
    stems = _stems  # this call's map: a thread replacing a full cache cannot empty it
    words = [TOKEN_PATTERN.findall(text.lower()) for text in texts]
    new = list({w for row in words for w in row}.difference(stems))
    if new:
        stems.update(zip(new, english_stemmer().stemWords(new), strict=True))
        if len(stems) > STEM_CACHE_LIMIT:
            _stems = {}  # later calls start afresh
    return [[stems[w] for w in row if w not in stopwords] for row in words]
