"""BM25 among a few texts, computed directly: the scores a bm25s index of them would give.

bm25s builds a vocabulary, a sparse score matrix and progress bars for every index (~0.3 ms),
and FiF scores ~4 small sets a question (the rows a hop could follow, the nodes a bridge
could leave from). This computes the same Lucene BM25 (k1 1.5, b 0.75: bm25s's defaults)
with bm25s's number types, so the scores are the same float32 values; a unit test holds
the two together on random sets.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

K1 = 1.5
B = 0.75


def bm25_scores(query_terms: Sequence[str], corpus: Sequence[Sequence[str]]) -> list[float]:
    """Return each text's BM25 score for the query terms, IDF taken within the corpus.

    As in bm25s: a term's IDF is a float32 of log(1 + (N - df + 0.5) / (df + 0.5)); its
    score in a text is computed in float64 (numpy promotes to the float64 length norm) and
    stored as float32; a text's score sums its terms' scores in float32 in query order,
    repeated query terms counted again.
    """
    if not any(corpus):
        return [0.0] * len(corpus)
    average = np.array([len(text) for text in corpus]).mean()
    tallies = [Counter(text) for text in corpus]
    frequencies = {term: sum(term in c for c in tallies) for term in dict.fromkeys(query_terms)}
    idf = {  # only the query's terms are ever looked up
        term: np.float32(math.log(1 + (len(corpus) - df + 0.5) / (df + 0.5)))
        for term, df in frequencies.items()
        if df
    }
    wanted = [term for term in query_terms if term in idf]
    scores = []
    for text, counts in zip(corpus, tallies, strict=True):
        norm = K1 * ((1 - B) + B * len(text) / average)
        total = np.float32(0.0)
        for term in wanted:
            if term in counts:
                tf = np.float32(counts[term])
                total = np.float32(total + np.float32(idf[term] * (tf / (norm + tf))))
        scores.append(float(total))
    return scores


def bm25_scores_of_ids(query_ids: Sequence[int], docs: Sequence[np.ndarray]) -> list[float]:
    """Return `bm25_scores` for texts given as term-id arrays (a query id < 0: unknown term).

    The same float32 values, from a few array operations over all the texts at once
    instead of a tally per text: the reranker scores ~50 stored components this way.
    """
    lengths = np.array([len(doc) for doc in docs])
    if not lengths.any():
        return [0.0] * len(docs)
    norm = K1 * ((1 - B) + B * lengths / lengths.mean())
    owner = np.repeat(np.arange(len(docs)), lengths)
    every = np.concatenate(docs)
    parts: dict[int, np.ndarray] = {}
    for term in dict.fromkeys(t for t in query_ids if t >= 0):
        tf = np.bincount(owner[every == term], minlength=len(docs)).astype(np.float32)
        df = int(np.count_nonzero(tf))
        if df:
            idf = np.float32(math.log(1 + (len(docs) - df + 0.5) / (df + 0.5)))
            parts[term] = (idf * (tf / (norm + tf))).astype(np.float32)
    total = np.zeros(len(docs), dtype=np.float32)
    for term in query_ids:  # query order, repeats counted again, as bm25_scores sums
        if term in parts:
            total = total + parts[term]
    return total.tolist()  # type: ignore[no-any-return]
