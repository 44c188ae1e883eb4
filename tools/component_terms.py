"""Each component's analysed words, computed once by `fif build` instead of every question.

The offline decisions match words against whole components: the reranker's lexical facet
runs BM25 over ~50 candidates' full texts (~7,000 words), and a hop's residual or a step's
coverage asks which question words a component holds. Analysing those texts (lowercase,
split, stem) took ~6 ms of FiF's ~60 ms per question; the whole index's components
take under a second at build. The store keeps each component's terms (QUERY_STOPWORDS
removed, as every query-time match uses) as ids into one vocabulary, and is trusted only
next to the graph it was built from (its SHA-256). Without it (an index built before the
store) every lookup analyses the text, as before, and gives the same terms.

Each page of a filing is stored too, under its page key ("DOC#PAGE"), when the build passes
the pages: the terms of the page's text (`tools.filing_pages`), which the page ranking's
words view reads instead of analysing a filing's ~120 pages the first time a process meets
the filing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tools.atomic_file import read_npz, write_npz_atomically
from tools.graph_nav import node_content
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE
from tools.sparse_index import analyze_fresh
from tools.word_stems import QUERY_STOPWORDS

logger = logging.getLogger(__name__)

TERMS_FILE = "component_terms.npz"
FORMAT = 1
"""Bumped when what a term is changes (the analyzer, the texts): older stores are rebuilt."""
FULL_END, HEADINGS_END = 1, 2
"""Columns of a node's bounds: its terms start at column 0 and end, without or with its
section headings, at these."""
KEPT_SETS = 4096
"""Components whose distinct terms are kept between calls (a question touches ~50)."""
ALL_TABLE_ROWS = 1000
"""A component's full text keeps every row (no table in the corpora comes near this)."""


def full_text(graph: LayeredGraph, node_id: str) -> str:
    """Return a component's whole content with its document title (tables with all rows)."""
    text = node_content(graph, node_id, ALL_TABLE_ROWS)
    return f"{graph.title(graph.node(node_id).doc_id)}\n{text}"


def headings(graph: LayeredGraph, node_id: str) -> list[str]:
    """Return the headings of a component's section path (none outside sectioned files)."""
    section = graph.node(node_id).attrs.get("section") or []
    return [section] if isinstance(section, str) else [str(h) for h in section]


def lexical_text(graph: LayeredGraph, node_id: str) -> str:
    """Return a component's full text with the headings of its section path, if it has one.

    A filing's statement table often reads only "December 31, 2022 2021" and rows; the
    heading it sits under ("Consolidated Balance Sheets") is what a question names.
    """
    return "\n".join([full_text(graph, node_id), *headings(graph, node_id)])


def file_digest(path: Path) -> str:
    """Return the SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class ComponentTerms:
    """The analysed terms of every component: full text first, then its headings."""

    def __init__(
        self, nodes: Sequence[str], vocab: Sequence[str], ids: np.ndarray, bounds: np.ndarray
    ) -> None:
        self._row = {node: i for i, node in enumerate(nodes)}
        self._vocab = np.array(vocab, dtype=object)
        self._ids = ids
        self._bounds = bounds  # per node: start, end of its full text's terms, end of all
        self._full_sets: dict[str, frozenset[str]] = {}
        self._term_ids: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._row)

    @classmethod
    def build(cls, graph: LayeredGraph, pages: Sequence[tuple[str, str]] = ()) -> ComponentTerms:
        """Analyse every component's full text and headings, and each (page key, page text)."""
        nodes = [c for doc in graph.documents() for c in graph.children(doc)]
        texts = [full_text(graph, c) for c in nodes] + [text for _, text in pages]
        full = analyze_fresh(texts, QUERY_STOPWORDS)
        heads = analyze_fresh(["\n".join(headings(graph, c)) for c in nodes], QUERY_STOPWORDS)
        heads += [[] for _ in pages]  # a page has no headings of its own
        nodes += [key for key, _ in pages]
        vocab: dict[str, int] = {}
        ids: list[int] = []
        bounds = np.zeros((len(nodes), 3), dtype=np.int64)
        for i, (words, extra) in enumerate(zip(full, heads, strict=True)):
            bounds[i, 0] = len(ids)
            ids += [vocab.setdefault(w, len(vocab)) for w in words]
            bounds[i, 1] = len(ids)
            ids += [vocab.setdefault(w, len(vocab)) for w in extra]
            bounds[i, 2] = len(ids)
        return cls(nodes, list(vocab), np.array(ids, dtype=np.int32), bounds)

    def save(self, path: Path, graph_digest: str) -> None:
        """Write the store beside the graph it was built from (atomically)."""
        meta = {"format": FORMAT, "graph_sha256": graph_digest, "nodes": list(self._row)}
        meta["vocab"] = self._vocab.tolist()
        write_npz_atomically(path, meta, ids=self._ids, bounds=self._bounds)

    @classmethod
    def load(cls, path: Path, graph_digest: str) -> ComponentTerms | None:
        """Return the store at `path` if it was built from this graph (else None)."""
        found = read_npz(
            path,
            lambda meta: meta.get("format") == FORMAT and meta.get("graph_sha256") == graph_digest,
            "words are analysed at query time",
        )
        if found is None:
            return None
        meta, arrays = found
        return cls(meta["nodes"], meta["vocab"], arrays["ids"], arrays["bounds"])

    def full(self, node_id: str) -> list[str] | None:
        """Return the terms of a component's full text, in order (None: not a component)."""
        return self._terms(node_id, FULL_END)

    def page(self, key: str) -> list[str] | None:
        """Return the terms of a filing page's text ("DOC#PAGE"; None: not stored)."""
        return self._terms(key, FULL_END)

    def lexical(self, node_id: str) -> list[str] | None:
        """Return the terms of a component's lexical text (full text, then headings)."""
        return self._terms(node_id, HEADINGS_END)

    def lexical_ids(self, node_ids: Sequence[str]) -> list[np.ndarray] | None:
        """Return each component's lexical term ids (None if any node is not stored)."""
        rows = [self._row.get(node) for node in node_ids]
        if None in rows:
            return None
        return [self._ids[self._bounds[r, 0] : self._bounds[r, HEADINGS_END]] for r in rows]

    def ids_of(self, terms: Sequence[str]) -> list[int]:
        """Return each term's id in the store's vocabulary (-1: no component has it)."""
        if self._term_ids is None:
            self._term_ids = {term: i for i, term in enumerate(self._vocab.tolist())}
        return [self._term_ids.get(term, -1) for term in terms]

    def _terms(self, node_id: str, end_column: int) -> list[str] | None:
        row = self._row.get(node_id)
        if row is None:
            return None
        start, end = self._bounds[row, 0], self._bounds[row, end_column]
        return self._vocab[self._ids[start:end]].tolist()  # type: ignore[no-any-return]

    def full_set(self, node_id: str) -> frozenset[str] | None:
        """Return the distinct terms of a component's full text, kept once computed."""
        found = self._full_sets.get(node_id)
        if found is None:
            terms = self.full(node_id)
            if terms is None:
                return None
            if len(self._full_sets) >= KEPT_SETS:
                self._full_sets = {}  # a long-running server keeps only recent components
            found = self._full_sets[node_id] = frozenset(terms)
        return found


def open_terms(index_dir: Path) -> ComponentTerms | None:
    """Return an index's store if it matches the index's graph file, else None (said once).

    None means words are analysed at query time: an index built before the store existed,
    or one whose graph changed since.
    """
    path, store = index_dir / TERMS_FILE, None
    if path.is_file():
        store = ComponentTerms.load(path, file_digest(index_dir / GRAPH_FILE))
    if store is None:
        logger.info(
            "%s has no component terms of its graph; `fif build CORPUS --index %s` adds them "
            "(a faster reranker, the same ranking)",
            index_dir,
            index_dir,
        )
    return store


def sync_component_terms(
    index_dir: Path, graph: LayeredGraph, graph_file: Path, pages: Sequence[tuple[str, str]] = ()
) -> str:
    """Bring the store up to date with the graph file; return "kept" or "indexed".

    `pages`: the filings' pages as (page key, page text) (`tools.filing_pages.page_texts`).
    """
    digest = file_digest(graph_file)
    path = index_dir / TERMS_FILE
    if path.is_file() and ComponentTerms.load(path, digest) is not None:
        return "kept"
    store = ComponentTerms.build(graph, pages)
    store.save(path, digest)
    logger.info("component terms: %d components and filing pages", len(store))
    return "indexed"
