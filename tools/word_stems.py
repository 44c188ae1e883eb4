"""BM25's word analysis for the few texts of a query-time call, without bm25s's setup.

`bm25s.tokenize` builds a vocabulary, three progress bars and a stopword set per text on
every call (~0.3 ms however short its texts); FiF analyzes ~17 new texts a question. The
same steps here (lowercase, bm25s's token pattern, drop stopwords, stem the distinct words
once) give the same tokens: a unit test holds the two together, and they agreed on every
text of the OTT-QA and HotpotQA dev indices. A whole layer still goes through bm25s,
which is faster on 50k texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
"""bm25s's default token pattern (scikit-learn's): words of two or more characters."""


def word_stems(texts: Sequence[str], stopwords: frozenset[str], stemmer: Any) -> list[list[str]]:
    """Return each text's lowercased words minus `stopwords`, stemmed by `stemmer.stemWords`."""
    words = [[w for w in TOKEN_PATTERN.findall(t.lower()) if w not in stopwords] for t in texts]
    distinct = list(dict.fromkeys(w for row in words for w in row))
    stem = dict(zip(distinct, stemmer.stemWords(distinct), strict=True))
    return [[stem[w] for w in row] for row in words]
