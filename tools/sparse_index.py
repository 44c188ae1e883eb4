"""Sparse layer indices: one BM25 index per layer (bm25s, Snowball stems from PyStemmer).

They sit beside the Chroma collections in `DIR/sparse/<layer>/` (bm25s's own numpy and
JSON files, never pickle) with `rows.json`: each row's node id, document, component and
kind, and a hash of the layer's texts. BM25's IDF is a property of the whole layer, so a
changed layer is re-indexed whole (seconds for 60k texts) and an unchanged one is kept.

A search inside a set of documents (a local hop, or single-document evaluation) masks
the other rows inside the BM25 scoring itself, so it is exhaustive within the set, not a
filtered global top-k.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from state.corpus import LAYERS
from tools.atomic_file import write_text_atomically
from tools.errors import IndexNotFoundError
from tools.index import Hit
from tools.small_bm25 import bm25_scores
from tools.word_stems import QUERY_STOPWORDS, STOPWORDS, STOPWORDS_EN, english_stemmer, word_stems

if TYPE_CHECKING:
    import bm25s

logger = logging.getLogger(__name__)
# bm25s sets its own logger to DEBUG, so every small index built for a hop would reach the
# user's log handlers; its progress is not the user's business.
logging.getLogger("bm25s").setLevel(logging.WARNING)

SPARSE_DIR = "sparse"
ROWS_FILE = "rows.json"
SPARSE_LAYERS = LAYERS
SPARSE_FORMAT = 1
"""Bumped when tokenisation or the row file changes, so older sparse indices are rebuilt."""


@dataclass(frozen=True)
class SparseRow:
    """What one text of a layer is: its node, document, component and kind."""

    node_id: str
    doc_id: str
    component_id: str
    kind: str


CACHED_BATCH = 64
"""Calls with at most this many texts (a question, a hop's rows) reuse earlier analyses:
FiF analyzes the same question and rows ~40 times per question, and each bm25s call costs
~0.3 ms however short its texts. Larger calls (indexing a layer) skip the cache."""
CACHE_LIMIT = 100_000
_analyzed: dict[tuple[str, str], tuple[str, ...]] = {}


def analyze(texts: Sequence[str], stopwords: str | list[str] = STOPWORDS) -> list[list[str]]:
    """Return the BM25 terms of each text: lowercased words, no stopwords, English stems."""
    if not texts:
        return []
    if len(texts) > CACHED_BATCH:
        return _bm25s_tokenize(list(texts), stopwords)
    which = stopwords if isinstance(stopwords, str) else "\x1f".join(stopwords)
    found = {t: _analyzed.get((which, t)) for t in dict.fromkeys(texts)}
    missing = [t for t, tokens in found.items() if tokens is None]
    if missing:
        if len(_analyzed) > CACHE_LIMIT:
            _analyzed.clear()
        for text, tokens in zip(missing, _tokenize(missing, stopwords), strict=True):
            found[text] = _analyzed[(which, text)] = tuple(tokens)
    return [list(found[t] or ()) for t in texts]


def analyze_fresh(texts: Sequence[str], stopwords: str | list[str] = STOPWORDS) -> list[list[str]]:
    """Return what `analyze` returns, for many texts and without keeping them (a build)."""
    return _tokenize(list(texts), stopwords)


def _tokenize(texts: list[str], stopwords: str | list[str]) -> list[list[str]]:
    """Return what `_bm25s_tokenize` returns, faster for the few texts of a query-time call."""
    skip = _stopword_set(stopwords if isinstance(stopwords, str) else tuple(stopwords))
    return word_stems(texts, skip)


def _bm25s_tokenize(texts: list[str], stopwords: str | list[str]) -> list[list[str]]:
    import bm25s

    tokens = bm25s.tokenize(
        texts,
        lower=True,
        stopwords=stopwords,
        stemmer=english_stemmer(),
        return_ids=False,
        show_progress=False,
    )
    return [list(t) for t in tokens]  # type: ignore[union-attr]


@lru_cache(maxsize=8)
def _stopword_set(stopwords: str | tuple[str, ...]) -> frozenset[str]:
    if isinstance(stopwords, tuple):
        return frozenset(stopwords)
    if stopwords != STOPWORDS:
        raise ValueError(f"stopwords {stopwords!r}: give {STOPWORDS!r} or a list of words")
    return frozenset(STOPWORDS_EN)


def stem_words(words: Sequence[str]) -> list[str]:
    """Return the analyzer's English stem of each lowercased word, in order."""
    return list(english_stemmer().stemWords([word.lower() for word in words]))


def terms(text: str) -> set[str]:
    """Return the distinct content terms of a text (stems, without QUERY_STOPWORDS)."""
    return set(analyze([text], QUERY_STOPWORDS)[0])


def bm25_within(query: str, texts: Sequence[str]) -> list[float]:
    """Return BM25 scores of a query against a small set of texts, IDF taken within the set.

    Used to tell apart a few candidates (the rows a hop could follow): a word rare among
    them is what singles one out, whatever its frequency in the whole corpus.
    """
    return bm25_within_terms(analyze([query], QUERY_STOPWORDS)[0], analyze(texts, QUERY_STOPWORDS))


def bm25_within_terms(query_terms: Sequence[str], corpus: Sequence[Sequence[str]]) -> list[float]:
    """Return `bm25_within`'s scores from analysed words (a query's, each text's)."""
    if not query_terms or not any(corpus):
        return [0.0] * len(corpus)
    return bm25_scores(query_terms, corpus)


def texts_hash(items: Iterable[tuple[SparseRow, str]]) -> str:
    """Return a hash of a layer's rows and texts, to tell whether it must be re-indexed."""
    digest = hashlib.sha256(f"fif-sparse-{SPARSE_FORMAT}".encode())
    for row, text in items:
        digest.update(f"{row.node_id}\x1f{row.kind}\x1f{text}\x1e".encode())
    return digest.hexdigest()


class SparseLayer:
    """The BM25 index of one layer and the rows its scores refer to."""

    def __init__(self, retriever: bm25s.BM25 | None, rows: list[SparseRow], digest: str) -> None:
        self.retriever = retriever
        """None for an empty layer (bm25s cannot index zero texts)."""
        self.rows = rows
        self.digest = digest
        self._rows_of_doc: dict[str, list[int]] = {}
        for position, row in enumerate(rows):
            self._rows_of_doc.setdefault(row.doc_id, []).append(position)

    @classmethod
    def build(cls, items: Sequence[tuple[SparseRow, str]]) -> SparseLayer:
        """Index a layer's (row, text) pairs."""
        rows = [row for row, _ in items]
        digest = texts_hash(items)
        if not items:
            return cls(None, rows, digest)
        import bm25s

        retriever = bm25s.BM25()
        retriever.index(analyze([text for _, text in items]), show_progress=False)
        return cls(retriever, rows, digest)

    def save(self, folder: Path) -> None:
        """Write the layer to a folder, replacing what was there (rows last, as a commit mark)."""
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        if self.retriever is not None:
            self.retriever.save(str(folder), show_progress=False)
        payload = {
            "format": SPARSE_FORMAT,
            "digest": self.digest,
            "rows": [[r.node_id, r.doc_id, r.component_id, r.kind] for r in self.rows],
        }
        write_text_atomically(folder / ROWS_FILE, json.dumps(payload))

    @classmethod
    def load(cls, folder: Path) -> SparseLayer | None:
        """Read a saved layer; None if it is missing, unfinished or of an older format."""
        try:
            payload = json.loads((folder / ROWS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if payload.get("format") != SPARSE_FORMAT:
            return None
        rows = [SparseRow(*row) for row in payload["rows"]]
        retriever = None
        if rows:
            import bm25s

            retriever = bm25s.BM25.load(str(folder), mmap=False, show_progress=False)
        return cls(retriever, rows, payload["digest"])

    def query(self, text: str, n: int, doc_ids: Sequence[str] | None = None) -> list[Hit]:
        """Return up to n rows with a positive BM25 score, best first (ties by node id).

        With `doc_ids`, rows of other documents are masked out before ranking.
        """
        if self.retriever is None or n <= 0:
            return []
        query_terms = analyze([text])[0]
        if not query_terms:
            return []
        mask = self._mask(doc_ids)
        if mask is not None and not mask.any():
            return []
        scores = self.retriever.get_scores(query_terms, weight_mask=mask)
        positive = np.flatnonzero(scores > 0)
        if len(positive) > n:
            positive = positive[np.argpartition(-scores[positive], n - 1)[:n]]
        order = sorted(positive, key=lambda i: (-float(scores[i]), self.rows[i].node_id))
        return [self._hit(int(i), float(scores[i])) for i in order]

    def _mask(self, doc_ids: Sequence[str] | None) -> np.ndarray | None:
        if doc_ids is None:
            return None
        mask = np.zeros(len(self.rows), dtype=np.float32)
        for doc_id in doc_ids:
            mask[self._rows_of_doc.get(doc_id, [])] = 1.0
        return mask

    def _hit(self, position: int, score: float) -> Hit:
        row = self.rows[position]
        return Hit(row.node_id, row.doc_id, row.component_id, row.kind, score)


class SparseLayers:
    """The sparse indices of one FiF index, by layer."""

    def __init__(self, folder: Path, layers: dict[str, SparseLayer]) -> None:
        self.folder = folder
        self.layers = layers

    @classmethod
    def open(cls, index_dir: Path) -> SparseLayers:
        """Open the sparse indices of a built index.

        Raises:
            IndexNotFoundError: If a layer is missing (an index built before sparse search).
        """
        folder = index_dir / SPARSE_DIR
        layers: dict[str, SparseLayer] = {}
        for name in SPARSE_LAYERS:
            layer = SparseLayer.load(folder / name)
            if layer is None:
                raise IndexNotFoundError(
                    f"{index_dir} has no sparse {name} index (it predates sparse search or "
                    f"its build stopped); run `fif build CORPUS --index {index_dir}` again: it "
                    "adds the sparse indices and re-embeds nothing"
                )
            layers[name] = layer
        return cls(folder, layers)

    def query(
        self, layer: str, text: str, n: int, doc_ids: Sequence[str] | None = None
    ) -> list[Hit]:
        """Return up to n BM25 hits of a layer, optionally inside a set of documents."""
        return self.layers[layer].query(text, n, doc_ids)


def sync_sparse_layers(
    index_dir: Path, items_by_layer: dict[str, list[tuple[SparseRow, str]]], rebuild: bool = False
) -> dict[str, str]:
    """Bring every sparse layer up to date; return what happened to each (kept or indexed).

    A layer whose rows and texts hash as the stored ones is kept; any other is indexed anew.
    """
    folder = index_dir / SPARSE_DIR
    outcome: dict[str, str] = {}
    for name in SPARSE_LAYERS:
        items = items_by_layer.get(name, [])
        stored = None if rebuild else SparseLayer.load(folder / name)
        if stored is not None and stored.digest == texts_hash(items):
            outcome[name] = "kept"
            continue
        SparseLayer.build(items).save(folder / name)
        outcome[name] = "indexed"
        logger.info("sparse %s index: %d texts", name, len(items))
    return outcome
