"""Word-level checks the offline decisions use: content words in order, and coverage.

Stems and stopwords come from the one analyzer the BM25 indices use (tools.sparse_index),
so "does this evidence cover the question" and BM25 retrieval agree on what a word is. A
component's terms come from the build's store (tools.component_terms) when the index has
one, else from analysing its text: the same terms either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

from tools.component_terms import full_text, lexical_text
from tools.corpus_index import CorpusIndex
from tools.small_bm25 import bm25_scores_of_ids
from tools.sparse_index import analyze, bm25_within_terms, terms
from tools.word_stems import QUERY_STOPWORDS

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
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
    return covered_share(query, terms(evidence))


def covered_share(query: str, covered: AbstractSet[str]) -> float:
    """Return the share of the query's content terms among `covered` (evidence's terms)."""
    wanted = terms(query)
    if not wanted:
        return 1.0
    return len(wanted & covered) / len(wanted)


def lexical_bm25(index: CorpusIndex, query: str, node_ids: Sequence[str]) -> list[float]:
    """Return BM25 scores of a query among the nodes' lexical texts, IDF within the set.

    Stored components are scored from their term ids (`bm25_scores_of_ids`), others from
    their analysed texts: the same float32 scores either way.
    """
    query_terms = analyze([query], QUERY_STOPWORDS)[0]
    store = index.component_terms()
    if store is None or (docs := store.lexical_ids(node_ids)) is None:
        return bm25_within_terms(query_terms, lexical_terms(index, node_ids))
    return bm25_scores_of_ids(store.ids_of(query_terms), docs)


def lexical_terms(index: CorpusIndex, node_ids: Sequence[str]) -> list[list[str]]:
    """Return the terms of each node's lexical text: from the store, else analysed now."""
    store = index.component_terms()
    found = [store.lexical(n) if store else None for n in node_ids]
    missing = [n for n, terms in zip(node_ids, found, strict=True) if terms is None]
    if missing:
        analysed = iter(analyze([lexical_text(index.graph, n) for n in missing], QUERY_STOPWORDS))
        found = [terms if terms is not None else next(analysed) for terms in found]
    return [terms or [] for terms in found]


def covered_terms(
    index: CorpusIndex, node_ids: Sequence[str], texts: Sequence[str] = ()
) -> set[str]:
    """Return the distinct terms of the nodes' full texts and of any further texts."""
    store = index.component_terms()
    covered: set[str] = set()
    unstored = list(texts)
    for node in node_ids:
        stored = store.full_set(node) if store else None
        if stored is None:
            unstored.append(full_text(index.graph, node))
        else:
            covered |= stored
    for words in analyze(unstored, QUERY_STOPWORDS):  # no texts: no words
        covered.update(words)
    return covered
