"""Ask a running `fif serve` instead of opening the index: the CLI's `--server URL`.

A fresh process that opens an index imports torch, Chroma and networkx and loads the query
encoder before it does milliseconds of work; a server has all of them loaded already. This
module speaks the server's JSON API (`/api/search`, `/api/ask`) with the standard library
alone, so `fif search --server URL` imports neither of them.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from tools.errors import ConfigError, FiFError

TOKEN_ENV = "FIF_SERVE_TOKEN"
"""The bearer token `fif serve --token` reads from the same variable."""
TIMEOUT_S = 600.0
"""An LLM-backed run may take minutes; a server that never answers still ends the call."""


class ServerError(FiFError):
    """The server refused the request or could not be reached."""


def server_url(url: str) -> tuple[str, dict[str, str]]:
    """Split `http://host:port[/][?index=NAME&token=T]` into its base and query parameters.

    Raises:
        ConfigError: If the URL is not http(s) with a host.
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"--server {url!r}: give the URL `fif serve` printed, e.g. http://127.0.0.1:8000"
        )
    base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return base, dict(urllib.parse.parse_qsl(parts.query))


def remote_search(url: str, question: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Run `GET /api/search` (k, mode, granularity in `options`) and return its JSON."""
    base, params = server_url(url)
    query = urllib.parse.urlencode({**params, "q": question, **options})
    return _call(urllib.request.Request(f"{base}/api/search?{query}"), url)


def remote_ask(url: str, request: Mapping[str, Any]) -> dict[str, Any]:
    """Run `POST /api/ask` with an AskRequest body and return its JSON."""
    base, params = server_url(url)
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    body = json.dumps(dict(request)).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    call = urllib.request.Request(f"{base}/api/ask{query}", body, headers, method="POST")
    return _call(call, url)


def _call(request: urllib.request.Request, url: str) -> dict[str, Any]:
    """Send a request (with the token of $FIF_SERVE_TOKEN) and decode its JSON answer."""
    token = os.environ.get(TOKEN_ENV)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310
            return dict(json.loads(response.read().decode("utf-8")))
    except urllib.error.HTTPError as err:
        raise ServerError(f"fif serve at {url} answered {err.code}: {_detail(err)}") from err
    except (urllib.error.URLError, OSError) as err:
        raise ServerError(
            f"no fif serve answers at {url} ({getattr(err, 'reason', err)}); start one with "
            "`fif serve --index DIR`, or drop --server to open the index in this process"
        ) from err


def _detail(err: urllib.error.HTTPError) -> str:
    """Return the server's error message (FastAPI's `detail`), else the HTTP reason."""
    try:
        detail = json.loads(err.read().decode("utf-8")).get("detail")
    except (ValueError, AttributeError, OSError):
        detail = None
    return " ".join(str(detail or err.reason).split())
