"""Turn the body of one HTML page into ordered paragraph, table and image components."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import Tag
from bs4.element import NavigableString, PageElement

from corpus_builder.html_links import LinkIndex
from corpus_builder.html_tables import has_content, row_cells_text, table_grid
from corpus_builder.html_tags import (
    CONTENT_TAGS,
    HEADING_TAGS,
    INLINE_TAGS,
    LIST_TAGS,
    PARAGRAPH_TAGS,
    REMOVED_TAGS,
    SPACED_TAGS,
    element_text,
)
from corpus_builder.images import ImageGuard
from state.corpus import Component, IngestReport, Table
from state.ids import ComponentKind, component_id

logger = logging.getLogger(__name__)

CellContent = tuple[str, tuple[str, ...]]
"""A table cell's text and the doc ids it links to."""
AnchorPair = tuple[str, str]
"""A hyperlink's anchor text and the doc id it resolves to."""


@dataclass
class ComponentWalker:
    """Collect the components of one page body in document order."""

    path: Path
    doc_id: str
    folder: Path
    index: LinkIndex
    report: IngestReport
    guard: ImageGuard
    components: list[Component] = field(default_factory=list)
    _counts: dict[str, int] = field(default_factory=dict)
    _inline: list[PageElement] = field(default_factory=list)
    _caption: tuple[str, tuple[AnchorPair, ...]] = ("", ())
    """The enclosing <figure>'s caption and its links, given to the images and tables inside."""

    def read(self, body: Tag) -> tuple[Component, ...]:
        """Return the components of a page body; the body is modified (chrome removed)."""
        for tag in body.find_all(REMOVED_TAGS):
            if not tag.decomposed:
                tag.decompose()
        for br in body.find_all("br"):
            br.replace_with("\n")
        for tag in body.find_all(SPACED_TAGS):
            tag.insert(0, " ")
            tag.append(" ")
        self._walk(body)
        return tuple(self.components)

    def _walk(self, element: Tag) -> None:
        for child in list(element.children):
            if isinstance(child, Tag):
                self._visit(child)
            elif type(child) is NavigableString:  # not a Comment, Doctype or CData
                self._inline.append(child)
        self._flush()

    def _visit(self, tag: Tag) -> None:
        name = tag.name
        if name in INLINE_TAGS and tag.find(CONTENT_TAGS) is None:
            self._inline.append(tag)
            return
        self._flush()
        if name in PARAGRAPH_TAGS or name in LIST_TAGS:
            text = _list_text(tag) if name in LIST_TAGS else element_text(tag)
            self._paragraph(text, tag.find_all("a", href=True))
            for img in tag.find_all("img"):
                self._image(img)
        elif name == "table":
            self._table(tag)
        elif name == "figure":
            self._figure(tag)
        elif name == "img":
            self._image(tag)
        elif name not in HEADING_TAGS:
            self._walk(tag)

    def _flush(self) -> None:
        nodes, self._inline = self._inline, []
        text = " ".join("".join(_node_text(node) for node in nodes).split())
        anchors: list[Tag] = []
        for node in nodes:
            if isinstance(node, Tag):
                anchors.extend([node] if node.name == "a" and node.has_attr("href") else [])
                anchors.extend(node.find_all("a", href=True))
        self._paragraph(text, anchors)

    def _paragraph(self, text: str, anchor_tags: list[Tag]) -> None:
        if text:
            self._add_paragraph(text, self._pairs(anchor_tags, self._next_id("paragraph")))

    def _add_paragraph(self, text: str, pairs: Sequence[AnchorPair]) -> None:
        self._add(
            Component(
                self._next_id("paragraph"),
                self.doc_id,
                "paragraph",
                len(self.components),
                text=text,
                links=_distinct_targets(pairs),
                anchors=tuple(dict.fromkeys(pair for pair in pairs if pair[0])),
            )
        )

    def _pairs(self, anchor_tags: list[Tag], cid: str) -> list[AnchorPair]:
        return [(element_text(a), doc) for a in anchor_tags if (doc := self._follow(a, cid))]

    def _figure(self, figure: Tag) -> None:
        caption_tag = figure.find("figcaption")
        caption: tuple[str, tuple[AnchorPair, ...]] = ("", ())
        if isinstance(caption_tag, Tag):
            caption_tag.extract()
            caption = (
                element_text(caption_tag),
                tuple(self._pairs(caption_tag.find_all("a", href=True), "figcaption")),
            )
        before, outer = len(self.components), self._caption
        self._caption = caption if caption[0] else outer
        self._walk(figure)
        self._caption = outer
        if caption[0] and all(c.kind == "paragraph" for c in self.components[before:]):
            self._add_paragraph(*caption)

    def _image(self, img: Tag) -> None:
        cid = self._next_id("image")
        src = _attr(img, "src") or _attr(img, "data-src")
        where = f"{self.path} ({cid}: {src[:80] or 'no src'})"
        text = self._caption[0] or _attr(img, "alt") or _attr(img, "title")
        image_path = self._image_file(src, where, bool(text)) if src else None
        if image_path is None and not text:
            if not src:
                self.report.skip(where, "<img> with neither src nor alt/title text")
            return
        self._add(
            Component(
                cid,
                self.doc_id,
                "image",
                len(self.components),
                text=text,
                image_path=image_path,
                links=_distinct_targets(self._caption[1]),
            )
        )

    def _image_file(self, src: str, where: str, has_text: bool) -> str | None:
        try:
            parts = urlsplit(src)
        except ValueError:
            unstored: str | None = f"malformed image address {src[:80]!r}"
        else:
            unstored = _unstored_source(src, parts.scheme.lower(), parts.netloc)
        if unstored is not None:
            if has_text:
                self.report.repair(where, f"{unstored} is not stored; kept its caption only")
            else:
                self.report.skip(where, f"{unstored} without alt/caption text")
            return None
        path = unquote(parts.path)
        target = self.folder / path.lstrip("/") if path.startswith("/") else self.path.parent / path
        return self.guard.check(str(target.absolute()), where, self.report)

    def _table(self, table: Tag) -> None:
        if str(table.get("role", "")).lower() in ("presentation", "none"):
            self._walk(table)
            return
        header_cells, body = table_grid(table)
        body = [row for row in body if any(has_content(cell) for cell in row)]
        if not body:  # a one-row table is a line of text, not a table
            self._paragraph(row_cells_text(header_cells), table.find_all("a", href=True))
            return
        cid = self._next_id("table")
        where = f"{self.path} ({cid})"
        if table.find("table") is not None:
            self.report.repair(where, "nested table flattened into the text of its cell")
        width = len(header_cells)
        wider = sum(len(row) > width for row in body)
        if wider:
            self.report.repair(
                where, f"{wider} row(s) wider than the {width}-column header: extra cells dropped"
            )
        cells = self._cell_contents([header_cells, *body], cid)
        header = tuple(cells[id(c)][0] for c in header_cells)
        grid = [
            [cells[id(c)] for c in row[:width]] + [("", ())] * (width - len(row)) for row in body
        ]
        cell_links = tuple(tuple(links for _, links in row) for row in grid)
        linked = [cells[id(c)][1] for c in header_cells] + [c for row in cell_links for c in row]
        linked.append(_distinct_targets(self._caption[1]))
        caption = table.find("caption", recursive=False)
        self._add(
            Component(
                cid,
                self.doc_id,
                "table",
                len(self.components),
                text=element_text(caption) if isinstance(caption, Tag) else self._caption[0],
                table=Table(header, tuple(tuple(t for t, _ in row) for row in grid), cell_links),
                links=tuple(dict.fromkeys(doc for links in linked for doc in links)),
            )
        )

    def _cell_contents(self, rows: list[list[Tag]], cid: str) -> dict[int, CellContent]:
        """Return each distinct cell's text and linked doc ids, keyed by the cell's id()."""
        contents: dict[int, CellContent] = {}
        for cell in (cell for row in rows for cell in row):
            if id(cell) not in contents:
                targets = (self._follow(a, cid) for a in cell.find_all("a", href=True))
                links = tuple(dict.fromkeys(t for t in targets if t))
                contents[id(cell)] = element_text(cell), links
        return contents

    def _follow(self, anchor: Tag, cid: str) -> str | None:
        href = anchor.get("href")
        if not isinstance(href, str):
            return None
        return self.index.follow(href, self.doc_id, f"{self.path} ({cid})", self.report)

    def _next_id(self, kind: ComponentKind) -> str:
        return component_id(self.doc_id, kind, self._counts.get(kind, 0))

    def _add(self, component: Component) -> None:
        self._counts[component.kind] = self._counts.get(component.kind, 0) + 1
        self.components.append(component)


def _distinct_targets(pairs: Sequence[AnchorPair]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(doc for _, doc in pairs))


def _list_text(tag: Tag) -> str:
    """Return a list's items one per line, so that each item becomes its own sentence."""
    items = (element_text(item) for item in tag.find_all(["li", "dt", "dd"], recursive=False))
    return "\n".join(item for item in items if item) or element_text(tag)


def _node_text(node: PageElement) -> str:
    return node.get_text() if isinstance(node, Tag) else str(node)


def _attr(tag: Tag, name: str) -> str:
    value = tag.get(name)
    return " ".join(value.split()) if isinstance(value, str) else ""


def _unstored_source(src: str, scheme: str, netloc: str) -> str | None:
    """Name the kind of an image source that is not a file of the corpus, else None."""
    if scheme == "data":
        return "inline data: image"
    if scheme in ("http", "https") or netloc:
        return f"remote image {src[:80]!r}"
    return f"{scheme}: image" if scheme else None
