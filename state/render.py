"""Render table content as text, the same way for embedding, snippets and prompts."""

from __future__ import annotations

from collections.abc import Sequence


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
