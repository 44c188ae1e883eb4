"""Find a page's figures, charts and pictures from the bounds of its graphic objects.

pypdfium2 lists a page's objects with their bounds: embedded images are raster regions as
they are; vector charts, diagrams and ruled tables are many path objects drawn close
together, so paths are clustered on a coarse grid (each object's box, grown by half the
gap, marks the cells it covers; touching cells form one cluster). A cluster of enough
objects over enough of the page is a region. Boxes are turned to a top-left origin here.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from corpus_builder.pdf_pages import PdfRegion

logger = logging.getLogger(__name__)

Box = tuple[float, float, float, float]
MIN_IMAGE_SHARE = 0.02
"""Images covering less of the page than this (logos, icons, signatures) are not figures."""
MIN_CHART_SHARE = 0.03
"""A path cluster covering less of the page than this is a rule, a bullet or an underline."""
MIN_CHART_PATHS = 6
"""Fewer path objects are a frame or a box around text, not a chart or a diagram."""
MIN_SIDE = 36.0
"""Points (half an inch): a thinner cluster is a rule or a line of bullets."""
BACKGROUND_SHARE = 0.8
"""A single path this large is a page background or frame; it would join every cluster."""
MAX_REGION_SHARE = 0.9
"""A region this large is the page itself (a scan, a full-bleed slide): OCR reads the page."""
CELL = 6.0
"""Grid cell in points; paths closer than about one cell are drawn as one graphic."""
MAX_REGIONS = 12
"""Regions kept per page (largest first); more are decoration, not figures."""
RASTER_SHARE = 0.5
"""A merged region is raster when images cover at least this share of it."""


@dataclass(frozen=True)
class GraphicObject:
    """An image, path or form object of a page, its bounds in pdfium's bottom-left coordinates.

    A form (an embedded PDF figure, as papers include their plots) is a figure on its own.
    """

    kind: Literal["image", "path", "form"]
    left: float
    bottom: float
    right: float
    top: float
    raster: bool = False
    """True for an image, and for a form that holds one."""


def find_regions(
    page: int, width: float, height: float, objects: Sequence[GraphicObject]
) -> tuple[list[PdfRegion], list[str]]:
    """Return the page's regions (top-left boxes) and the problems met (objects off the page)."""
    if width <= 0 or height <= 0:
        return [], []
    problems: list[str] = []
    images: list[Box] = []
    figures: list[Box] = []
    paths: list[Box] = []
    area = width * height
    for obj in objects:
        box = (obj.left, height - obj.top, obj.right, height - obj.bottom)
        clipped = _clip(box, width, height)
        if clipped is None:
            if obj.kind == "image":
                problems.append(f"page {page}: an image lies outside the page; ignored")
            continue
        if obj.kind == "path":
            if _area(clipped) < BACKGROUND_SHARE * area:
                paths.append(clipped)
        elif MIN_IMAGE_SHARE * area <= _area(clipped) < MAX_REGION_SHARE * area:
            (images if obj.raster else figures).append(clipped)  # a page-sized one is the page
    charts = [box for box, count in _clusters(paths, width, height) if _is_chart(box, count, area)]
    merged = _merge([*images, *figures, *charts])
    regions = [
        PdfRegion(page, _rounded(box), _raster_share(box, images) >= RASTER_SHARE)
        for box in merged
        if _area(box) < MAX_REGION_SHARE * area
    ]
    regions.sort(key=lambda r: -_area(r.box))
    kept = sorted(regions[:MAX_REGIONS], key=lambda r: (r.box[1], r.box[0]))
    return kept, problems


def _rounded(box: Box) -> Box:
    """Return a box to a tenth of a point, as bundles store it (a round trip keeps it equal)."""
    return (round(box[0], 1), round(box[1], 1), round(box[2], 1), round(box[3], 1))


def _is_chart(box: Box, count: int, page_area: float) -> bool:
    wide, tall = box[2] - box[0], box[3] - box[1]
    return (
        count >= MIN_CHART_PATHS
        and _area(box) >= MIN_CHART_SHARE * page_area
        and min(wide, tall) >= MIN_SIDE
    )


def _clip(box: Box, width: float, height: float) -> Box | None:
    x1, y1, x2, y2 = max(0.0, box[0]), max(0.0, box[1]), min(width, box[2]), min(height, box[3])
    return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None


def _area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _cells(box: Box, columns: int, rows: int) -> tuple[range, range]:
    """Return the grid columns and rows a box grown by half a cell covers."""
    half = CELL / 2
    c1, c2 = int(max(0.0, box[0] - half) // CELL), int((box[2] + half) // CELL)
    r1, r2 = int(max(0.0, box[1] - half) // CELL), int((box[3] + half) // CELL)
    return range(c1, min(c2, columns - 1) + 1), range(r1, min(r2, rows - 1) + 1)


def _clusters(boxes: Sequence[Box], width: float, height: float) -> list[tuple[Box, int]]:
    """Return each cluster of touching boxes as (union box, number of boxes)."""
    columns, rows = int(width // CELL) + 1, int(height // CELL) + 1
    owner: dict[tuple[int, int], int] = {}
    parent = list(range(len(boxes)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for index, box in enumerate(boxes):
        xs, ys = _cells(box, columns, rows)
        for cx in xs:
            for cy in ys:
                other = owner.setdefault((cx, cy), index)
                if other != index:
                    parent[find(other)] = find(index)
    groups: dict[int, list[Box]] = {}
    for index, box in enumerate(boxes):
        groups.setdefault(find(index), []).append(box)
    return [(_union(members), len(members)) for members in groups.values()]


def _union(boxes: Sequence[Box]) -> Box:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _merge(boxes: Sequence[Box]) -> list[Box]:
    """Merge overlapping boxes until none overlap (a chart over its own background image)."""
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                if _overlap(merged[i], merged[j]):
                    merged[i] = _union([merged[i], merged[j]])
                    del merged[j]
                    changed = True
                    break
            if changed:
                break
    return merged


def _raster_share(box: Box, images: Sequence[Box]) -> float:
    covered = sum(_area(_clip_to(image, box)) for image in images)
    return covered / _area(box) if _area(box) else 0.0


def _clip_to(inner: Box, outer: Box) -> Box:
    return (
        max(inner[0], outer[0]),
        max(inner[1], outer[1]),
        min(inner[2], outer[2]),
        min(inner[3], outer[3]),
    )
