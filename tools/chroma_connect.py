"""Connect to Chroma when a layer is first used, not when an index is opened.

Importing chromadb and making its client took ~1 s of a fresh `fif search` or `fif ask`
(more than the work itself). A process that reads the layers only through the build's copy
of the vectors (tools.vector_mirror) and takes its counts from there never pays it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from tools.errors import ConfigError, MissingDependencyError


def chroma_connector(index_dir: Path, chroma_url: str | None) -> Callable[[], Any]:
    """Return how to connect to an embedded store under index_dir, or to a server at chroma_url.

    The URL is checked and the store's folder made now, so a wrong option fails at once.

    Raises:
        ConfigError: If chroma_url is not an http(s)://host[:port] URL.
    """
    if chroma_url:
        parsed = urlparse(chroma_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ConfigError(f"--chroma-url {chroma_url!r}: expected http://host:port")
    else:
        (index_dir / "chroma").mkdir(parents=True, exist_ok=True)
    return partial(connect, index_dir, chroma_url)


def connect(index_dir: Path, chroma_url: str | None) -> Any:
    """Import chromadb and return a client of the embedded store or of the server."""
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as err:
        raise MissingDependencyError(
            "the layer indices need chromadb: pip install chromadb"
        ) from err
    settings = Settings(anonymized_telemetry=False)
    if not chroma_url:
        return chromadb.PersistentClient(path=str(index_dir / "chroma"), settings=settings)
    parsed = urlparse(chroma_url)
    host, port, ssl = parsed.hostname or "", parsed.port or 8000, parsed.scheme == "https"
    return chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
