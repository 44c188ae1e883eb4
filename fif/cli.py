"""The `fif` entry point: the agent's commands plus the ones evaluation owns.

Each package owns its subcommands (`graph_agent.cli`: build, search, ask, replay;
`evals.cli` and `evals.convert_cli`: eval, convert). Only this module sees them all, so
no package below imports one above it.

The other packages' commands are joined only when the command line needs them: importing
`evals.cli` alone (datasets, networkx, the regression tables) is import time a cold
`fif search` never uses (docs/performance.md). `app` (for tests and tools that invoke the
whole command) is the agent's app with every command joined.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

import typer

from graph_agent.cli import app as agent_app
from graph_agent.cli import run_app

AGENT_COMMANDS = ("build", "search", "ask", "replay")
"""`graph_agent.cli`'s own commands: a line naming one of them needs no other package."""
JOINED_COMMANDS = {
    # name -> (module, function, help)
    "eval": ("evals.cli", "eval_command", "Evaluate systems on a bundle's questions."),
    "convert": (
        "evals.convert_cli",
        "convert_command",
        "Turn a benchmark's raw files into a bundle.",
    ),
    "mcp": ("mcp_server.cli", "mcp_command", "Serve an index's tools to assistants (MCP)."),
    "serve": ("serve.cli", "serve_command", "Serve a web page and a JSON API over an index."),
}


def full_app() -> typer.Typer:
    """Return the agent's app with every other package's command joined (once)."""
    joined = {info.name for info in agent_app.registered_commands}
    for name, (module, function, text) in JOINED_COMMANDS.items():
        if name not in joined:
            agent_app.command(name, help=text)(getattr(import_module(module), function))
    return agent_app


def command_named(argv: list[str]) -> str | None:
    """Return the subcommand a command line names (its first word not an option), if any."""
    return next((word for word in argv if not word.startswith("-")), None)


def __getattr__(name: str) -> Any:
    """Give `app` as the whole command, joined on first use (PEP 562)."""
    if name == "app":
        return full_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Run `fif` with every subcommand; FiF errors end as one line and exit code 2."""
    run_app(agent_app if command_named(sys.argv[1:]) in AGENT_COMMANDS else full_app())
