"""`fif mcp`: serve an index's tools to assistants over stdio or streamable HTTP.

`fif.cli` registers `mcp_command`; the server logs to stderr only, because over stdio
the protocol owns stdout.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from graph_agent.cli_options import (
    BaseUrlOpt,
    ChatModelOpt,
    ChromaOpt,
    IndexOpt,
    LocalModelOpt,
)
from tools.errors import ConfigError, MissingDependencyError, install_hint
from tools.loopback import is_loopback

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from mcp_server.settings import ServerSettings

logger = logging.getLogger(__name__)

DEFAULT_PORT = 8765


def mcp_command(
    index: IndexOpt,
    transport: Annotated[
        str, typer.Option(help="stdio (an assistant launches the server) | http")
    ] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP: interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP: port.")] = DEFAULT_PORT,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote/--loopback-only",
            help="HTTP: allow a non-loopback --host (the server has no authentication).",
        ),
    ] = False,
    preload: Annotated[
        bool, typer.Option("--preload/--lazy", help="Open the index and model at startup.")
    ] = True,
    chroma_url: ChromaOpt = None,
    backend: Annotated[str | None, typer.Option(help="ask: offline | openai | local")] = None,
    chat_model: ChatModelOpt = None,
    base_url: BaseUrlOpt = None,
    local_model: LocalModelOpt = None,
    max_steps: Annotated[int | None, typer.Option(help="ask: traversal budget.")] = None,
) -> None:
    """Serve search, ask, get_component, get_document and get_page over MCP."""
    from mcp_server.settings import ServerSettings
    from state.settings import RunSettings

    build_server = _server_builder()
    chosen = _transport(transport)
    if chosen == "streamable-http":
        _check_host(host, allow_remote)
    overrides = {
        "backend": backend,
        "chat_model": chat_model,
        "base_url": base_url,
        "local_model_path": local_model,
        "max_steps": max_steps,
    }
    settings = ServerSettings(index.resolve(), chroma_url, overrides)
    RunSettings.from_env({**overrides, "index_dir": str(settings.index_dir)})  # fail before serving
    if preload:
        settings.warm()
    server = build_server(settings)
    logger.info("serving %s over %s", settings.index_dir, transport)
    if chosen == "stdio":
        server.run("stdio")
    else:
        _serve_http(server, host, port)


def _serve_http(server: MCPServer, host: str, port: int) -> None:
    """Serve streamable HTTP through uvicorn with the HTTP limits `fif serve` has.

    Head size, slow clients and connections (tools.http_limits); the SDK's app keeps its
    own Host and Origin checks (421, 403) and body limit.
    """
    import uvicorn

    from tools.http_limits import server_options

    app = server.streamable_http_app(host=host)
    uvicorn.run(app, host=host, port=port, log_level="warning", **server_options())


def _server_builder() -> Callable[[ServerSettings], MCPServer]:
    """Return build_server, or fail with the install command when the SDK is missing."""
    try:
        from mcp_server.server import build_server
    except ModuleNotFoundError as error:
        if error.name is None or not error.name.startswith("mcp"):
            raise
        raise MissingDependencyError(
            f"`fif mcp` needs the MCP SDK ({error.name} is missing): {install_hint('mcp')}"
        ) from error
    return build_server


def _transport(name: str) -> Literal["stdio", "streamable-http"]:
    if name == "stdio":
        return "stdio"
    if name in ("http", "streamable-http"):
        return "streamable-http"
    raise ConfigError(f"unknown --transport {name!r}; use stdio or http")


def _check_host(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback interface unless asked for: the server has no authentication."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise ConfigError(
            f"--host {host} is not a loopback address and the MCP server has no authentication; "
            "pass --allow-remote to serve on it anyway (behind a proxy that authenticates)"
        )
    logger.warning("serving MCP on %s without authentication", host)
