"""A run reads one version of its index, from its first step to its last.

A build publishes a new version of an index folder while `fif serve` or `fif mcp` keep
answering from it (tools.index_versions), and they then reopen it. A run that started
before keeps the CorpusIndex it started with: `pinned_index` holds it for the run's thread
and for the threads LangGraph starts from there (it copies contextvars into them), and
`tools.corpus_index.open_index` returns it for that location inside the block. Without the
pin, the steps after the reopen would read the new version while the earlier ones read the
old: a ranking made of two indices.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from tools.index_versions import live_dir

if TYPE_CHECKING:
    from tools.corpus_index import CorpusIndex

Location = tuple[str, str | None]
"""An index as open_index keys it: its folder and its Chroma server (None: embedded)."""

_PINNED: ContextVar[tuple[tuple[Location, CorpusIndex], ...]] = ContextVar(
    "pinned_indices", default=()
)


def pinned(index_dir: str | Path, chroma_url: str | None) -> CorpusIndex | None:
    """Return the index a run in this context holds for that location (None: no pin)."""
    wanted = (str(index_dir), chroma_url)
    return next((index for where, index in _PINNED.get() if where == wanted), None)


@contextmanager
def pinned_index(index_dir: str | Path, chroma_url: str | None = None) -> Iterator[CorpusIndex]:
    """Open the index (the version live now) and read only it until the block ends.

    A pin already held for the location is kept (a run inside a run reads what its caller reads).
    """
    from tools.corpus_index import open_index

    held = pinned(index_dir, chroma_url)
    if held is not None:
        yield held
        return
    index = open_index(index_dir, chroma_url)
    token = _PINNED.set((*_PINNED.get(), ((str(index_dir), chroma_url), index)))
    try:
        yield index
    finally:
        _PINNED.reset(token)


def rebuilt_since_opened(index: CorpusIndex) -> bool:
    """Tell whether a build published another version since the index was opened."""
    return live_dir(index.index_dir) != (index.data_dir or index.index_dir)


def current_index(index_dir: str | Path, chroma_url: str | None = None) -> CorpusIndex:
    """Return the shared index of a location, reopened first if a build replaced it.

    For long-lived processes that open an index per request (`fif mcp`); runs already
    going keep their pinned version.
    """
    from tools.corpus_index import open_index, reopen_index

    index = open_index(index_dir, chroma_url)
    return reopen_index(index_dir, chroma_url) if rebuilt_since_opened(index) else index
