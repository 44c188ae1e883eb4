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
from typing import Any, Protocol, TypeVar

from tools.index_versions import live_dir

Location = tuple[str, str | None]
"""An index as open_index keys it: its folder and its Chroma server (None: embedded)."""
Index = TypeVar("Index")
"""tools.corpus_index.CorpusIndex (this module sits below it)."""

_PINNED: ContextVar[tuple[tuple[Location, Any], ...]] = ContextVar("pinned_indices", default=())


class OpenedIndex(Protocol):
    """What tells an opened index's version: its folder and the version folder it reads."""

    index_dir: Path
    data_dir: Path | None


def pinned(index_dir: str | Path, chroma_url: str | None) -> Any:
    """Return the index a run in this context holds for that location (None: no pin)."""
    wanted = (str(index_dir), chroma_url)
    return next((index for where, index in _PINNED.get() if where == wanted), None)


@contextmanager
def pinned_index(index_dir: str | Path, chroma_url: str | None, index: Index) -> Iterator[Index]:
    """Read only `index` (opened for that location) for it until the block ends.

    A pin already held for the location is kept (a run inside a run reads what its caller reads).
    """
    held: Index | None = pinned(index_dir, chroma_url)
    if held is not None:
        yield held
        return
    token = _PINNED.set((*_PINNED.get(), ((str(index_dir), chroma_url), index)))
    try:
        yield index
    finally:
        _PINNED.reset(token)


def rebuilt_since_opened(index: OpenedIndex) -> bool:
    """Tell whether a build published another version since the index was opened."""
    return live_dir(index.index_dir) != (index.data_dir or index.index_dir)
