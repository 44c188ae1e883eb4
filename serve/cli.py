"""`fif serve`: parse the options, check them, run the app with uvicorn.

`fif/cli.py` registers `serve_command`; FiF errors raised here end there as one line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Annotated

import typer

from serve.settings import ServedIndexSpec, ServeSettings
from tools.errors import MissingDependencyError, install_hint

SERVER_PACKAGES = ("fastapi", "fastapi_offline", "uvicorn", "sse_starlette")


def serve_command(
    index: Annotated[
        list[str],
        typer.Option(
            "--index",
            "-i",
            help="Index folder (`fif build`), or NAME=DIR; repeat for several (first: default).",
        ),
    ],
    host: Annotated[str, typer.Option(help="Bind address; non-loopback needs --token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    runs: Annotated[
        Path | None, typer.Option(help="Folder of `fif eval` output folders to browse.")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(envvar="FIF_SERVE_TOKEN", help="Token every request must carry."),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="Another Host name the server answers to (e.g. behind a proxy)."),
    ] = None,
    ssl_certfile: Annotated[Path | None, typer.Option(help="Serve HTTPS with this cert.")] = None,
    ssl_keyfile: Annotated[Path | None, typer.Option(help="The certificate's key.")] = None,
    runs_per_client: Annotated[
        int, typer.Option(min=1, max=256, help="Runs one client address may have going.")
    ] = 4,
) -> None:
    """Serve a web page and a JSON API (/api, docs at /docs) over one or more built indices."""
    indices = tuple(ServedIndexSpec.parse(option) for option in index)
    hosts = tuple(allow_host or ())
    tls = ssl_certfile is not None
    settings = ServeSettings(indices, runs, token, host, hosts, tls, runs_per_client).checked()
    missing = [name for name in SERVER_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingDependencyError(
            f"fif serve needs {', '.join(missing)}: {install_hint('serve')}"
        )
    _run(settings, port, ssl_certfile, ssl_keyfile)


def _run(settings: ServeSettings, port: int, certfile: Path | None, keyfile: Path | None) -> None:
    """Run the app with uvicorn and the server's HTTP limits (tools.http_limits)."""
    import uvicorn

    from serve.app import create_app
    from tools.http_limits import server_options

    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=port,
        log_level="warning",
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        **server_options(),
    )
