"""A filing's pages as units: what each page holds, read once per document from the graph.

A page gathers the components printed on it (a component spanning pages counts on each),
their subcomponents (sentences, table rows: the text chunks a page is scored by), its
section titles and table captions, its tables' column headers and row labels, and the
statement it prints (`tools.statements`). Everything is derived from the layered graph, so
an index built before page ranking existed is ranked by pages without re-embedding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from state.ids import page_key
from tools.filing_catalog import filings_of
from tools.layered_graph import LayeredGraph
from tools.sparse_index import analyze
from tools.statements import is_note, statement_by_lines, statement_by_title
from tools.word_stems import QUERY_STOPWORDS


@dataclass
class FilingPage:
    """One page of a PDF document and what it holds."""

    key: str
    """"DOC#PAGE", zero-indexed."""
    doc_id: str
    components: list[str] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)
    """Subcomponent ids (sentences, rows) printed on the page; paragraphs without any count."""
    titles: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    """Column header cells of the page's tables (the periods they report)."""
    labels: list[str] = field(default_factory=list)
    """First cell of each table row (the line items)."""
    text: str = ""
    statement: str = ""
    titled: bool = False
    """Whether a title names the statement (a primary statement), not only its line items."""
    note: bool = False
    words: list[str] | None = None
    """The page text's analysed words (BM25 terms), once `page_words` has read them."""


def document_pages(graph: LayeredGraph, doc_id: str) -> list[FilingPage]:
    """Return a document's pages in order (cached per graph and document)."""
    return list(_cached_pages(graph, doc_id))


@lru_cache(maxsize=256)
def _cached_pages(graph: LayeredGraph, doc_id: str) -> tuple[FilingPage, ...]:
    pages: dict[int, FilingPage] = {}
    texts: dict[int, list[str]] = {}
    for component in graph.children(doc_id):
        view = graph.node(component)
        span = view.pages
        if span is None:
            continue
        header = [str(cell) for cell in view.attrs.get("header", [])]
        rows = [[str(cell) for cell in row] for row in view.attrs.get("rows", [])]
        for number in range(span[0], span[1] + 1):
            page = pages.setdefault(number, FilingPage(page_key(doc_id, number), doc_id))
            page.components.append(component)
            page.titles += [t for t in (*view.section[-2:], view.text if header else "") if t]
            page.headers += header
            page.labels += [row[0] for row in rows if row]
            texts.setdefault(number, []).append(
                _component_text(view.section, view.text, header, rows)
            )
        for chunk in graph.children(component):
            chunk_span = graph.node(chunk).pages or span
            for number in range(chunk_span[0], chunk_span[1] + 1):
                if number in pages:
                    pages[number].chunks.append(chunk)
    numbers = sorted(pages)
    for number in numbers:
        page = pages[number]
        page.titles = list(dict.fromkeys(page.titles))
        page.text = " ".join(texts[number])
        titled = statement_by_title(page.titles)
        page.statement = titled or statement_by_lines(page.labels)
        page.titled = bool(titled)
        page.note = is_note(page.titles)
    return tuple(pages[n] for n in numbers)


def page_texts(graph: LayeredGraph) -> list[tuple[str, str]]:
    """Return every filing page of the graph as (page key, page text), for the build's store."""
    return [
        (page.key, page.text) for doc in filings_of(graph) for page in document_pages(graph, doc)
    ]


StoredWords = Callable[[str], list[str] | None]
"""A page key -> its words as the build stored them (None: not stored)."""


def page_words(pages: list[FilingPage], stored: StoredWords | None = None) -> list[list[str]]:
    """Return each page's BM25 terms, read once per page and kept on it.

    The build stores them (`tools.component_terms`); a page it did not store (or an index
    without the store) has its text analysed, which gives the same terms.
    """
    unread = [page for page in pages if page.words is None]
    missing = []
    for page in unread:
        page.words = stored(page.key) if stored else None
        if page.words is None:
            missing.append(page)
    if missing:
        texts = [page.text for page in missing]
        for page, words in zip(missing, analyze(texts, QUERY_STOPWORDS), strict=True):
            page.words = words
    return [page.words or [] for page in pages]


def _component_text(
    section: tuple[str, ...], text: str, header: list[str], rows: list[list[str]]
) -> str:
    parts = [*section[-2:], text, " ".join(header), *(" ".join(row) for row in rows)]
    return " ".join(part for part in parts if part)
