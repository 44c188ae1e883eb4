"""Read an HTML table's rows into a grid of cells: header row first, colspans repeated."""

from __future__ import annotations

from bs4 import Tag

from corpus_builder.html_tags import element_text

MAX_COLSPAN = 100


def table_grid(table: Tag) -> tuple[list[Tag], list[list[Tag]]]:
    """Return the header row's cells and the other rows' cells, with colspans repeated."""
    rows: list[tuple[Tag, list[Tag]]] = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        cells: list[Tag] = []
        for cell in tr.find_all(["td", "th"], recursive=False):
            cells.extend([cell] * colspan(cell))
        if cells:
            rows.append((tr, cells))
    if not rows:
        return [], []
    head = next((i for i, (tr, _) in enumerate(rows) if tr.parent and tr.parent.name == "thead"), 0)
    return rows[head][1], [cells for i, (_, cells) in enumerate(rows) if i != head]


def has_content(cell: Tag) -> bool:
    """Tell whether a cell has text or a link."""
    return bool(element_text(cell)) or cell.find("a", href=True) is not None


def row_cells_text(cells: list[Tag]) -> str:
    """Return a row's cell texts joined by " | ", a colspan cell once."""
    texts = [element_text(c) for i, c in enumerate(cells) if i == 0 or c is not cells[i - 1]]
    return " | ".join(text for text in texts if text)


def colspan(cell: Tag) -> int:
    """Return a cell's colspan, clamped to 1..MAX_COLSPAN (junk counts as 1)."""
    value = str(cell.get("colspan") or "1").strip()
    return min(max(int(value), 1), MAX_COLSPAN) if value.isdigit() else 1
