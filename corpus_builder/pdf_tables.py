"""Recognise table rows in PDF text lines and assemble them into tables with a header.

Financial statements print a row as a label followed by numbers ("Net sales $ 1,234 (56)
12.3%"); a run of such lines is a table. Its header is the short lines just above the first
row ("Year ended December 31,", "2022 2021"); label-only lines inside ("Current assets:")
are rows without values.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from state.corpus import Table

_NUMBER = re.compile(r"^\(?[-–]?\$?\(?(?:\d[\d,]*\d|\d)(?:\.\d+)?\)?%?\)?$|^\(?\$?\.\d+\)?%?$")
_DASH = frozenset({"—", "–", "-", "−", "n/a", "N/A", "NM", "nm", "*"})
_SUFFIXES = frozenset({"%", ")", "pts", "bps"})
_PROSE_ENDINGS = frozenset(
    "a an and as at by for from in into of on or than the to was were with since until "
    "about over under before after during between through".split()
)
"""A label ending in one of these words before a number is prose ("increased in 2022")."""
YEAR = re.compile(r"^(?:19|20)\d\d$")
"""A value that is a year names a column ("2023 2022") rather than filling one."""
MAX_LABEL_CHARS = 150
"""Labels longer than this are running text that ends in a number, not a row."""
MAX_HEADER_LINES = 3
"""Short lines above a table taken as its header; more would swallow the paragraph above."""
MAX_HEADER_CHARS = 120
"""A longer line above a table is prose introducing it, not a header line."""


@dataclass(frozen=True)
class RowCells:
    """A line split into its label and the values printed after it."""

    label: str
    values: tuple[str, ...]


@lru_cache(maxsize=1 << 16)
def row_cells(text: str) -> RowCells | None:
    """Split a line into a label and trailing numeric values, or None when it is not a row."""
    tokens = text.split()
    values: list[str] = []
    suffix = ""
    position = len(tokens)
    while position > 0:
        token = tokens[position - 1]
        if token in _SUFFIXES:  # printed apart from its number: "12.3 %", "(56 )"
            suffix = token + suffix
        elif token == "$" and values:
            values[0] = f"${values[0]}"
        elif _is_value(token + suffix):
            values.insert(0, token + suffix)
            suffix = ""
        else:
            break
        position -= 1
    label = " ".join(tokens[:position])
    if not values or not any(any(ch.isdigit() for ch in value) for value in values):
        return None
    if len(label) > MAX_LABEL_CHARS or (not label and len(values) < 2):
        return None
    last_word = label.rsplit(" ", 1)[-1].lower() if label else ""
    if last_word in _PROSE_ENDINGS or label.endswith((",", ";")) and len(values) == 1:
        return None
    return RowCells(label, tuple(values))


def _is_value(token: str) -> bool:
    if token in _DASH:
        return True
    # "(Note 5)" is a reference, not the negative number "(5)".
    return bool(_NUMBER.match(token)) and (token.count("(") == token.count(")"))


def _is_year(value: str) -> bool:
    return bool(YEAR.match(value))


def is_row_label(text: str) -> bool:
    """Tell whether a line without numbers can be a label row inside a table ("Assets:")."""
    return len(text) <= 80 and not text.endswith((".", ";")) and not row_cells(text)


@dataclass
class TableDraft:
    """Rows collected so far for one table, with the page of each row."""

    header_lines: list[str] = field(default_factory=list)
    rows: list[RowCells] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)

    def add(self, cells: RowCells, page: int) -> None:
        """Append a row printed on a page; a header repeated atop a continued page is dropped."""
        if not cells.values and cells.label in self.header_lines:
            return
        continued = bool(self.pages) and page != self.pages[-1] and self.value_rows > 0
        if continued and cells.values and all(_is_year(value) for value in cells.values):
            return
        self.rows.append(cells)
        self.pages.append(page)

    @property
    def value_rows(self) -> int:
        """Count the rows that hold at least one value."""
        return sum(1 for row in self.rows if row.values)

    def finish(self) -> tuple[str, Table]:
        """Return the caption (non-column header text) and the table, label-only tail dropped."""
        while self.rows and not self.rows[-1].values:
            self.rows.pop()
            self.pages.pop()
        # Leading rows of years only ("As of December 31, 2017 2016") name the columns.
        while (
            len(self.rows) > 1
            and self.rows[0].values
            and all(_is_year(v) for v in self.rows[0].values)
        ):
            first = self.rows.pop(0)
            self.pages.pop(0)
            self.header_lines.append(" ".join([first.label, *first.values]))
        widths = Counter(len(row.values) for row in self.rows if row.values)
        columns = widths.most_common(1)[0][0] if widths else 0
        caption_parts, names = [], [""] * columns
        for line in self.header_lines:
            rest, found = column_names(line, columns)
            if found:
                names = found
            if rest:
                caption_parts.append(rest)
        header = ("", *names)
        rows = tuple(_aligned(row, columns) for row in self.rows)
        caption = " ".join(part for part in caption_parts if part).strip()
        return caption, Table(header, rows, row_pages=tuple(self.pages))


def column_names(line: str, columns: int) -> tuple[str, list[str]]:
    """Split a header line into leading caption text and one name per column, when it has them.

    "As of December 31, 2023 2022" names two columns "2023", "2022"; "FISCAL 2021 FISCAL
    2020" names them "FISCAL 2021", "FISCAL 2020" (each name ends in its year, and the
    first takes as many words before its year as the others). Otherwise the whole line is
    caption text.
    """
    cells = row_cells(line)
    if columns and cells is not None and len(cells.values) == columns:
        return cells.label, list(cells.values)
    tokens = line.split()
    years = [n for n, token in enumerate(tokens) if _is_year(token)]
    if not columns or len(years) != columns or columns < 2:
        return line, []
    width = years[1] - years[0]  # words per name, its year included
    if any(b - a != width for a, b in zip(years, years[1:], strict=False)):
        return line, []
    start = max(0, years[0] - width + 1)
    names = [" ".join(tokens[y - width + 1 : y + 1]) for y in years[1:]]
    first = " ".join(tokens[start : years[0] + 1])
    return " ".join(tokens[:start] + tokens[years[-1] + 1 :]), [first, *names]


def _aligned(row: RowCells, columns: int) -> tuple[str, ...]:
    """Right-align a row's values under the columns (a short row misses its leading columns)."""
    values = list(row.values[-columns:]) if columns else list(row.values)
    if len(row.values) > columns and columns:
        extra = row.values[: len(row.values) - columns]
        return (" ".join([row.label, *extra]).strip(), *values)
    return (row.label, *([""] * (columns - len(values))), *values)
