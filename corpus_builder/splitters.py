"""Split components into subcomponents: sentences, header+row table segments, image regions."""

from __future__ import annotations

import logging
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import ceil, floor
from typing import Any, Protocol

from PIL import Image

from state.corpus import Component, Document, Subcomponent
from state.ids import subcomponent_id
from state.render import row_text
from tools.errors import ConfigError
from tools.fragments import merge_fragments

logger = logging.getLogger(__name__)

_HAS_BOUNDARY = re.compile(r"[.!?。！？]")
_WORD = re.compile(r"[^\W\d_]{2,}")
MIN_SENTENCE_WORDS = 1
"""A fragment without a single word of letters ("1 . ") is glued to the next sentence."""
_OPENS_MID_SENTENCE = re.compile(r"[,;:)\]]")
_CIRCA = re.compile(r"(?:^|[\s(])(?:c|ca|fl)\.$")
_ORDINAL_IN_NAME = re.compile(r"(?:^|\s)(?:the|as|'s)\s+\d{1,2} ?\.$")
"""German ordinals inside names ("the 2. Bundesliga", "as 1 . FC Union"), pysbd ends there."""


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


SENTENCE_RULES = 1
"""Bumped with any change to how `split_sentences` splits: stored splits of an older rule
set (corpus_builder.sentence_store) are then split again."""


@lru_cache(maxsize=100_000)
def split_sentences(text: str) -> tuple[str, ...]:
    """Split text into sentences with pysbd's rule-based splitter.

    Abbreviations, decimals and initials ("Dr.", "3.5", "J. R. R. Tolkien") stay inside
    their sentence; fragments without a word ("1 . ") are glued to the next sentence.
    """
    text = text.strip()
    if not text:
        return ()
    # Only a terminal mark that is followed by more text can end a sentence early.
    if not _HAS_BOUNDARY.search(text[:-1]):
        return (text,)
    pieces = [piece.strip() for piece in _segmenter().segment(text)]
    return tuple(merge_fragments([piece for piece in pieces if piece], _too_short, _continues))


def _too_short(piece: str) -> bool:
    return len(_WORD.findall(piece)) < MIN_SENTENCE_WORDS


def _continues(previous: str, piece: str) -> bool:
    """Tell whether piece goes on with previous after a period that ends no sentence.

    pysbd splits after "Jr." before a comma set off by spaces ("Jr. , Woody"), after "c." in
    "c. 1150" and after German ordinals in names; a sentence never opens with a comma.
    """
    if _OPENS_MID_SENTENCE.match(piece):
        return True
    if piece[0].isdigit() and _CIRCA.search(previous):
        return True
    return piece[0].isupper() and _ORDINAL_IN_NAME.search(previous) is not None


def sentence_subcomponents(
    component: Component, split: Callable[[str], tuple[str, ...]] | None = None
) -> list[Subcomponent]:
    """Split a paragraph into sentence subcomponents; links follow their anchor text."""
    sentences = (split or split_sentences)(component.text)
    result = []
    cursor = 0
    for n, sentence in enumerate(sentences):
        links = tuple(dict.fromkeys(doc for anchor, doc in component.anchors if anchor in sentence))
        start = component.text.find(sentence, cursor)
        start = cursor if start < 0 else start
        cursor = start + len(sentence)
        pages = _span(component.page_at(start), component.page_at(max(start, cursor - 1)))
        result.append(
            Subcomponent(
                subcomponent_id(component.component_id, "sentence", n),
                component.component_id,
                component.doc_id,
                "sentence",
                n,
                sentence,
                links,
                pages=pages,
            )
        )
    return result


def row_subcomponents(component: Component) -> list[Subcomponent]:
    """Make one `header + row i` segment per data row; each links where its cells link."""
    table = component.table
    if table is None:
        return []
    result = []
    for n, row in enumerate(table.rows):
        text = row_text(table.header, row)
        if not text:
            continue
        result.append(
            Subcomponent(
                subcomponent_id(component.component_id, "row", n),
                component.component_id,
                component.doc_id,
                "row",
                n,
                text,
                table.row_links(n),
                pages=_row_pages(component, n),
            )
        )
    return result


def _span(first: int | None, last: int | None) -> tuple[int, int] | None:
    return None if first is None or last is None else (first, last)


def _row_pages(component: Component, n: int) -> tuple[int, int] | None:
    """Return a table row's page: its own when recorded, else the table's span."""
    table = component.table
    if table is not None and n < len(table.row_pages):
        return (table.row_pages[n], table.row_pages[n])
    return component.pages


@dataclass(frozen=True)
class Region:
    """A box inside an image, with a label when a detector or VLM named it."""

    box: tuple[int, int, int, int]
    label: str = ""


class RegionProposer(Protocol):
    """Propose regions of an image (a detector, a VLM, or fixed crops)."""

    def propose(self, path: str, size: tuple[int, int]) -> list[Region]:
        """Return regions of the image at path, whose (width, height) is size."""
        ...


@dataclass(frozen=True)
class FixedCrops:
    """The default proposer: a grid x grid tiling of the image, no labels."""

    grid: int = 2

    def propose(self, path: str, size: tuple[int, int]) -> list[Region]:
        """Return the grid's tiles as boxes (x1, y1, x2, y2)."""
        width, height = size
        step_x, step_y = width // self.grid, height // self.grid
        if step_x < 8 or step_y < 8:
            return []
        return [
            Region((col * step_x, row * step_y, (col + 1) * step_x, (row + 1) * step_y))
            for row in range(self.grid)
            for col in range(self.grid)
        ]


def region_subcomponents(
    component: Component, proposer: RegionProposer, size: tuple[int, int]
) -> list[Subcomponent]:
    """Make region subcomponents of an image; a region's text is its label or the caption."""
    if component.image_path is None:
        return []
    proposed = proposer.propose(component.image_path, size)
    result = []
    for n, region in enumerate(checked_regions(proposed, proposer, component.image_path, size)):
        text = region.label or component.text
        result.append(
            Subcomponent(
                subcomponent_id(component.component_id, "region", n),
                component.component_id,
                component.doc_id,
                "region",
                n,
                text,
                (),
                region.box,
            )
        )
    return result


def checked_regions(
    regions: object, proposer: RegionProposer, path: str, size: tuple[int, int]
) -> list[Region]:
    """Clip a proposer's boxes to the image (dropping empty ones); refuse any other shape.

    Detectors often give float or numpy boxes: any real numbers are rounded to pixels.
    """
    name = type(proposer).__name__
    if not isinstance(regions, list | tuple) or not all(isinstance(r, Region) for r in regions):
        got = type(regions).__name__
        if isinstance(regions, list | tuple) and regions:
            got = f"a {got} of {type(regions[0]).__name__}"
        raise ConfigError(
            f"region proposer {name} returned {got} for {path}; propose() must return a "
            "list of corpus_builder.splitters.Region"
        )
    width, height = size
    kept = []
    for region in regions:
        box = region.box
        if len(box) != 4 or not all(_is_number(v) for v in box):
            raise ConfigError(
                f"region proposer {name} gave the box {box!r} for {path}; a box is four "
                "numbers (x1, y1, x2, y2) in pixels"
            )
        x1, y1, x2, y2 = (round(float(v)) for v in box)
        x1, y1, x2, y2 = max(0, x1), max(0, y1), min(width, x2), min(height, y2)
        if x2 > x1 and y2 > y1:
            kept.append(Region((x1, y1, x2, y2), region.label))
    if len(kept) < len(regions):
        logger.debug("%s: dropped %d empty or outside regions", path, len(regions) - len(kept))
    return kept


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def split_components(
    documents: list[Document],
    proposer: RegionProposer,
    sentences: Callable[[str], tuple[str, ...]] | None = None,
) -> dict[str, list[Subcomponent]]:
    """Split every component into its subcomponents (sentences, rows, regions).

    `sentences` splits a paragraph's text (`split_sentences`, or a store of earlier splits).
    """
    result: dict[str, list[Subcomponent]] = {}
    for document in documents:
        for component in document.components:
            if component.kind == "paragraph":
                result[component.component_id] = sentence_subcomponents(component, sentences)
            elif component.kind == "table":
                result[component.component_id] = row_subcomponents(component)
            elif component.lines:
                result[component.component_id] = line_subcomponents(component)
            elif component.image_path is not None:
                with Image.open(component.image_path) as image:
                    size = image.size
                result[component.component_id] = region_subcomponents(component, proposer, size)
    return result


def line_subcomponents(component: Component) -> list[Subcomponent]:
    """Make a region subcomponent per text line of a PDF region; boxes in whole points."""
    return [
        Subcomponent(
            subcomponent_id(component.component_id, "region", n),
            component.component_id,
            component.doc_id,
            "region",
            n,
            line.text,
            (),
            (floor(line.box[0]), floor(line.box[1]), ceil(line.box[2]), ceil(line.box[3])),
            component.pages,
        )
        for n, line in enumerate(component.lines)
        if line.text.strip()
    ]
