"""Every `fif` command the README and docs/ show names a real subcommand and real options."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from fif.cli import app

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"```(?:bash|sh|console)?\n(.*?)```", re.DOTALL)
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def shown_commands(page: Path) -> list[str]:
    """Return the `fif ...` lines of a page's code blocks, continuation lines joined."""
    found = []
    for block in FENCE.findall(page.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split(" #")[0].split("&&"):
                if part.strip().startswith("fif "):
                    found.append(part.strip())
    return found


def options_of(command: Any) -> set[str]:
    """Return every option spelling a command accepts, `--help` included."""
    names = {"--help"}
    for param in command.params:
        names.update(o for o in [*param.opts, *param.secondary_opts] if o.startswith("--"))
    return names


def unknown_parts(line: str, group: Any) -> list[str]:
    """Return the subcommand or options of a shown `fif` line that the CLI does not have."""
    words = line.split()
    name = words[1] if len(words) > 1 else ""
    if name not in group.commands:
        return [f"fif {name}"]
    quoted = re.sub(r"\"[^\"]*\"|'[^']*'", "", line)  # a question may hold dashes
    return sorted(set(FLAG.findall(quoted)) - options_of(group.commands[name]))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_shown_commands_exist(page: Path) -> None:
    group = typer.main.get_command(app)
    wrong = {line: bad for line in shown_commands(page) if (bad := unknown_parts(line, group))}
    assert wrong == {}, f"{page.relative_to(REPO)} shows commands the CLI does not have"


def test_the_readme_tours_every_subcommand_but_convert() -> None:
    shown = {line.split()[1] for line in shown_commands(REPO / "README.md")}
    assert shown >= {"build", "search", "ask", "replay", "eval", "serve", "mcp"}


def test_a_wrong_option_is_caught() -> None:
    group = typer.main.get_command(app)
    assert unknown_parts('fif ask "a -- b" --index I --sytem fif', group) == ["--sytem"]
    assert unknown_parts("fif serach q", group) == ["fif serach"]
