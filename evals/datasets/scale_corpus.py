"""Grow a bundle to a target size with distractor pages made from real text (scale benchmark).

The planted bundle's documents and questions are kept as they are. Distractors are
incarnations of other bundles' pages (the sources): round r renames every title word
through a seeded permutation of the sources' title-word vocabulary, the same map over the
whole round, so a page and the pages that name it stay consistent; each page gets a fresh
id and links to the round's incarnations of the pages it linked to or names (table cell
links, title mentions). A sentence or row that would repeat one already written, or that
equals a sentence or row of the planted bundle, is dropped: no text is embedded twice and
no planted (gold) text appears in a distractor. Sizes count subcomponents (sentences and
table rows) as the builder splits them; a corpus stops at the first page that reaches it.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from corpus_builder.bundle_write import document_record
from corpus_builder.ingest import read_corpus
from corpus_builder.splitters import FixedCrops, split_components, split_sentences
from state.corpus import Component, Document, IngestReport, Table

TITLE_WORD = re.compile(r"\b[A-Z][a-z]{2,}\b")
COMMON = frozenset(
    "The And For With From This That List His Her She They There When After During Its "
    "Not But Also Who Which".split()
)
MAX_LINKS = 20
Splitter = Callable[[str], tuple[str, ...]]


@dataclass(frozen=True)
class SourcePage:
    """A source page as sentences per paragraph, tables, and the source pages it points to."""

    doc_id: str
    title: str
    paragraphs: tuple[tuple[str, ...], ...]
    tables: tuple[Component, ...]
    points_to: tuple[str, ...]


@dataclass(frozen=True)
class ScaledCorpus:
    """What a grown bundle holds."""

    planted_documents: int
    planted_subcomponents: int
    distractor_documents: int
    distractor_subcomponents: int
    rounds: int


def read_documents(bundle: Path) -> list[Document]:
    """Return a bundle's documents as the builder reads them."""
    return read_corpus(bundle, IngestReport())[1]


def unit_texts(documents: Sequence[Document]) -> list[str]:
    """Return every subcomponent text (sentences, rows) of documents, as the builder splits."""
    split = split_components(list(documents), FixedCrops())
    return [sub.text for subs in split.values() for sub in subs]


def source_pages(
    bundles: Sequence[Path], planted: Sequence[Document], split: Splitter = split_sentences
) -> list[SourcePage]:
    """Read the source bundles' pages, leaving out any page of the planted bundle."""
    taken = {d.doc_id for d in planted} | {d.title for d in planted}
    documents = [
        d
        for bundle in bundles
        for d in read_documents(bundle)
        if d.doc_id not in taken and d.title not in taken
    ]
    known = {d.doc_id for d in documents}
    named = _title_index(documents)
    pages = []
    for document in documents:
        paragraphs = tuple(
            split(c.text) for c in document.components if c.kind == "paragraph" and c.text
        )
        tables = tuple(c for c in document.components if c.kind == "table" and c.table)
        linked = [d for c in document.components for d in c.links if d in known]
        mentioned = _mentions(" ".join(s for p in paragraphs for s in p), named)
        points = [d for d in dict.fromkeys([*linked, *mentioned]) if d != document.doc_id]
        pages.append(SourcePage(document.doc_id, document.title, paragraphs, tables, tuple(points)))
    return pages


def _title_index(documents: Sequence[Document]) -> dict[tuple[str, ...], str]:
    """Map a title's words (parenthetical dropped) to its page, for titles worth matching."""
    index = {}
    for document in documents:
        words = tuple(re.sub(r"\s*\(.*\)$", "", document.title).split())
        if words and words[0][:1].isupper() and (len(words) > 1 or len(words[0]) >= 6):
            index[words] = document.doc_id
    return index


def _mentions(text: str, named: dict[tuple[str, ...], str]) -> list[str]:
    words = re.findall(r"[\w'.&-]+", text)
    found = []
    for start in range(len(words)):
        for length in range(4, 0, -1):
            page = named.get(tuple(words[start : start + length]))
            if page is not None:
                found.append(page)
                break
    return found[:MAX_LINKS]


def grow(
    planted_units: Sequence[str], sources: Sequence[SourcePage], target: int, seed: int
) -> Iterator[tuple[Document, int, int]]:
    """Yield (distractor, its subcomponents, its round) until the corpus reaches `target`.

    `planted_units` are the planted bundle's subcomponent texts (`unit_texts`).
    """
    needed = target - len(planted_units)
    forbidden = {_digest(t) for t in planted_units}
    seen: set[bytes] = set()
    vocabulary = sorted({w for p in sources for w in TITLE_WORD.findall(p.title)} - COMMON)
    round_number = 0
    while needed > 0 and sources:
        rng = random.Random(f"{seed}:{round_number}")
        renamed = vocabulary[:]
        rng.shuffle(renamed)
        rename = _renamer(dict(zip(vocabulary, renamed, strict=True)))
        order = list(range(len(sources)))
        rng.shuffle(order)
        ids = {p.doc_id: f"scale{seed}-r{round_number}-{n}" for n, p in enumerate(sources)}
        written: list[tuple[Document, int]] = []
        for position in order:
            page = _incarnation(sources[position], _Round(ids, rename, forbidden, seen))
            if page is not None and page[1]:
                written.append(page)
                needed -= page[1]
                if needed <= 0:
                    break
        kept = {d.doc_id for d, _ in written}
        if not kept:
            break  # nothing new can be made from these sources
        yield from ((_links_within(d, kept), n, round_number) for d, n in written)
        round_number += 1


def _renamer(mapping: dict[str, str]) -> Callable[[str], str]:
    def rename(text: str) -> str:
        return TITLE_WORD.sub(lambda m: mapping.get(m.group(0), m.group(0)), text)

    return rename


def _digest(text: str) -> bytes:
    return hashlib.blake2b(" ".join(text.split()).encode(), digest_size=8).digest()


@dataclass(frozen=True)
class _Round:
    """One pass over the sources: their fresh ids, the renaming, and the texts written so far."""

    ids: dict[str, str]
    rename: Callable[[str], str]
    taken: set[bytes]
    """Digests of the planted bundle's texts: never written."""
    seen: set[bytes]
    """Digests of every distractor text written, this round and before."""

    def fresh(self, text: str) -> bool:
        """Return True (and remember it) if text is neither written before nor planted."""
        digest = _digest(text)
        if digest in self.taken or digest in self.seen:
            return False
        self.seen.add(digest)
        return True


def _incarnation(page: SourcePage, round_: _Round) -> tuple[Document, int] | None:
    """Return the round's copy of a source page and its unit count; None if nothing is new."""
    ids, rename = round_.ids, round_.rename
    doc_id = ids[page.doc_id]
    links = tuple(ids[d] for d in page.points_to)
    components: list[Component] = []
    units = 0
    for sentences in page.paragraphs:
        kept = [s for s in map(rename, sentences) if round_.fresh(s)]
        if kept:
            cid = f"{doc_id}::p{len(components)}"
            text = " ".join(kept)
            components.append(
                Component(cid, doc_id, "paragraph", len(components), text, links=links)
            )
            units += len(kept)
    for source in page.tables:
        table = _renamed_table(source, round_)
        if table is not None:
            cid = f"{doc_id}::t{len(components)}"
            caption = rename(source.text)
            components.append(Component(cid, doc_id, "table", len(components), caption, table))
            units += len(table.rows)
    if not components:
        return None
    return Document(doc_id, rename(page.title), components=tuple(components)), units


def _renamed_table(source: Component, round_: _Round) -> Table | None:
    ids, rename = round_.ids, round_.rename
    table = source.table
    assert table is not None
    rows, cell_links = [], []
    for n, row in enumerate(table.rows):
        cells = tuple(rename(cell) for cell in row)
        if round_.fresh(" | ".join(cells)):
            rows.append(cells)
            links = table.cell_links[n] if n < len(table.cell_links) else ((),) * len(row)
            cell_links.append(tuple(tuple(ids[d] for d in c if d in ids) for c in links))
    if not rows:
        return None
    return Table(tuple(rename(h) for h in table.header), tuple(rows), tuple(cell_links))


def _links_within(document: Document, kept: set[str]) -> Document:
    """Drop links to pages of the round that were not written (the last round is partial)."""

    def within(component: Component) -> Component:
        links = tuple(d for d in component.links if d in kept)
        table = component.table
        if table is not None:
            cells = tuple(
                tuple(tuple(d for d in c if d in kept) for c in row) for row in table.cell_links
            )
            table = replace(table, cell_links=cells)
        return replace(component, links=links, table=table)

    return replace(document, components=tuple(within(c) for c in document.components))


def write_scaled_bundle(
    bundle: Path, sources: Sequence[Path], target: int, out: Path, seed: int = 7
) -> ScaledCorpus:
    """Write OUT/corpus.jsonl (the bundle's pages, then distractors) and its questions."""
    planted = read_documents(bundle)
    planted_units = unit_texts(planted)
    pages = source_pages(sources, planted)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundle / "questions.jsonl", out / "questions.jsonl")
    documents = units = rounds = 0
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        corpus.write((bundle / "corpus.jsonl").read_text(encoding="utf-8").rstrip("\n") + "\n")
        for document, count, round_number in grow(planted_units, pages, target, seed):
            corpus.write(json.dumps(document_record(document), ensure_ascii=False) + "\n")
            documents, units, rounds = documents + 1, units + count, round_number + 1
    return ScaledCorpus(len(planted), len(planted_units), documents, units, rounds)
