"""CLI output piped to a file or CI is not cut at rich's default 80 columns."""

from __future__ import annotations

import pytest
from rich.table import Table

from graph_agent.render import PIPED_WIDTH, make_console


def test_a_piped_console_is_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    console = make_console()  # pytest captures stdout: not a terminal
    assert not console.is_terminal and console.width == PIPED_WIDTH
    table = Table("system", *(f"metric_{n}" for n in range(12)))
    table.add_row("fif", *("0.123" for _ in range(12)))
    with console.capture() as captured:
        console.print(table)
    assert "metric_11" in captured.get() and "…" not in captured.get()


def test_columns_set_by_the_user_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    assert make_console(stderr=True).width == 120
