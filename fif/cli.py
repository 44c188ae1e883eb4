"""The `fif` entry point: the agent's commands plus the ones evaluation owns.

Each package owns its subcommands (`graph_agent.cli`: build, search, ask, replay;
`evals.cli` and `evals.convert_cli`: eval, convert). Only this module sees them all, so
no package below imports one above it.
"""

from __future__ import annotations

from evals.cli import eval_command
from evals.convert_cli import convert_command
from graph_agent.cli import app, run_app
from mcp_server.cli import mcp_command
from serve.cli import serve_command

app.command("eval", help="Evaluate systems on a bundle's questions.")(eval_command)
app.command("convert", help="Turn a benchmark's raw files into a bundle.")(convert_command)
app.command("mcp", help="Serve an index's tools to assistants (MCP).")(mcp_command)
app.command("serve", help="Serve a web page and a JSON API over an index.")(serve_command)


def main() -> None:
    """Run `fif` with every subcommand; FiF errors end as one line and exit code 2."""
    run_app(app)
