"""Render component content as text, the same way for embedding, snippets and prompts."""

from __future__ import annotations

from collections.abc import Sequence

TABLE_KIND = "table"


def row_text(header: Sequence[str], row: Sequence[str]) -> str:
    """Render a header + row segment as `column: value` pairs (empty cells are dropped)."""
    pairs = []
    for index, value in enumerate(row):
        if not value:
            continue
        name = header[index] if index < len(header) and header[index] else f"column {index + 1}"
        pairs.append(f"{name}: {value}")
    return " | ".join(pairs)


def table_text(header: Sequence[str], rows: Sequence[Sequence[str]], max_rows: int = 30) -> str:
    """Render a table as its header line followed by up to max_rows row segments."""
    lines = [" | ".join(header)] if header else []
    lines += [row_text(header, row) for row in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"... ({len(rows) - max_rows} more rows)")
    return "\n".join(lines)


def content_text(
    text: str,
    kind: str,
    table: tuple[Sequence[str], Sequence[Sequence[str]]],
    max_rows: int,
    separator: str = "\n",
) -> str:
    """Render a component's content: its text, and a table's header and rows after a separator.

    Args:
        text: The component's own text (a paragraph, a table's caption, an image's caption).
        kind: Its kind; only a table gets its rows appended.
        table: The table's (header, rows); ignored for other kinds.
        max_rows: At most this many rows (see `table_text`).
        separator: What joins the text and the rendered table.
    """
    if kind != TABLE_KIND:
        return text
    header, rows = table
    return f"{text}{separator}{table_text(header, rows, max_rows)}"
