"""fetch_section: a section's text with every block tagged by its pages, so findings cite pages.

A section is fetched whole (its own components and its descendants', in document order)
up to a character budget. Each block is one component; a table's rows are tagged with
their own pages (a table can cross a page break). The readable units (sentences and table
rows with their pages) are kept beside the text for the offline extraction rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from state.render import table_text
from tools.layered_graph import LayeredGraph
from tools.section_tree import SectionTree

MAX_BLOCKS = 80
"""Components read from one section at most, whatever the character budget."""


@dataclass(frozen=True)
class Unit:
    """A sentence or table row of a fetched block, with its pages."""

    node_id: str
    component_id: str
    text: str
    pages: tuple[int, int] | None
    kind: str


@dataclass(frozen=True)
class Block:
    """One component of a fetched section: its id, pages, text and readable units."""

    component_id: str
    kind: str
    pages: tuple[int, int] | None
    text: str
    units: tuple[Unit, ...]

    def spans(self) -> list[tuple[int, int]]:
        """Return the page spans of the block and of its units (rows can be on later pages)."""
        found = [unit.pages for unit in self.units if unit.pages is not None]
        return found if self.pages is None else [self.pages, *found]


@dataclass(frozen=True)
class SectionRef:
    """A section as a search or a fetch names it: its id, document, heading and page span."""

    section_id: str
    doc_id: str
    heading: str
    pages: tuple[int, int] | None


@dataclass(frozen=True)
class FetchedSection(SectionRef):
    """What fetch_section returns: the section's heading, page span and tagged blocks."""

    blocks: tuple[Block, ...]
    truncated: bool
    """True when the character budget or MAX_BLOCKS cut the section short."""

    def text(self) -> str:
        """Render the section as prompt text: a header line, then page-tagged blocks."""
        lines = [f"== {self.section_id} | {self.heading} | {page_tag(self.pages)} =="]
        lines.extend(block.text for block in self.blocks)
        if self.truncated:
            lines.append("[... section continues]")
        return "\n".join(lines)

    def page_numbers(self) -> set[int]:
        """Return every page a block of the fetched text is printed on."""
        found: set[int] = set()
        for block in self.blocks:
            for span in block.spans():
                found.update(range(span[0], span[1] + 1))
        return found


def page_tag(pages: tuple[int, int] | None) -> str:
    """Return the tag of a page span: "p.35", "pp.35-36", or "p.?" without pages."""
    if pages is None:
        return "p.?"
    return f"p.{pages[0]}" if pages[0] == pages[1] else f"pp.{pages[0]}-{pages[1]}"


def units_of(graph: LayeredGraph, component: str) -> tuple[Unit, ...]:
    """Return the sentences or rows of a component with their pages (their component's if none)."""
    own = graph.pages(component)
    return tuple(
        Unit(sub, component, view.text, view.pages or own, view.kind)
        for sub in graph.children(component)
        if (view := graph.node(sub)).text
    )


def block_text(graph: LayeredGraph, component: str, units: Sequence[Unit]) -> str:
    """Render one component with page tags: a paragraph on one line, a table row by row."""
    view = graph.node(component)
    tag = page_tag(view.pages)
    if view.kind != "table":
        return f"[{tag}] {' '.join(view.text.split())}"
    rows = view.attrs.get("rows", [])
    header = view.attrs.get("header", [])
    lines = [f"[{tag}] table: {' '.join(view.text.split())}".rstrip()]
    if header and any(header):
        lines.append(f"  [{tag}] {table_text(header, [], 0)}")
    row_units = [u for u in units if u.kind == "row"]
    if len(row_units) == len(rows):
        lines.extend(f"  [{page_tag(u.pages)}] {u.text}" for u in row_units)
    else:
        lines.extend(f"  {line}" for line in table_text([], rows, len(rows)).splitlines())
    return "\n".join(lines)


def fetch_section(
    graph: LayeredGraph, tree: SectionTree, section_id: str, max_chars: int
) -> FetchedSection:
    """Return a section's page-tagged text, up to `max_chars` characters of blocks.

    Raises:
        KeyError: If the section is not a node of the tree.
    """
    components = tree.components_under(section_id)
    blocks: list[Block] = []
    used = 0
    for component in components[:MAX_BLOCKS]:
        units = units_of(graph, component)
        text = block_text(graph, component, units)
        if blocks and used + len(text) > max_chars:
            break
        view = graph.node(component)
        blocks.append(Block(component, view.kind, view.pages, text[:max_chars], units))
        used += len(text)
    truncated = len(blocks) < len(components)
    heading = tree.heading(section_id)
    span = tree.spans.get(section_id)
    return FetchedSection(section_id, tree.doc_id, heading, span, tuple(blocks), truncated)
