"""One writer per index folder, and what readers can tell about it.

`fif build` holds an exclusive lock on `<index>/build.lock` while it writes, so a second
build into the same folder stops at once instead of interleaving its writes with the
first. Builds write a staging version and publish it at the end (tools.index_versions);
a reader (`fif serve`) compares the stamp of the live version to see that a build
finished and the index must be reopened, and asks `being_written` only for an index
whose vectors live on a Chroma server, which builds write in place.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tools.errors import IndexBusyError
from tools.index_versions import live_dir

try:
    import fcntl
except ImportError:  # not POSIX: no lock (builds are then not protected against each other)
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

LOCK_FILE = "build.lock"
MANIFEST_FILE = "manifest.json"


@contextmanager
def writer_lock(index_dir: Path) -> Iterator[None]:
    """Hold the index folder's writer lock for the block.

    Raises:
        IndexBusyError: If another build holds it; the message names that build's pid.
    """
    index_dir.mkdir(parents=True, exist_ok=True)
    with (index_dir / LOCK_FILE).open("a+", encoding="utf-8") as handle:
        if fcntl is None:
            logger.warning("no file locks on this system: nothing stops a second build")
            yield
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as busy:
            handle.seek(0)
            owner = handle.read().strip() or "another process"
            raise IndexBusyError(
                f"{index_dir} is being written by another build ({owner}); wait for it to "
                "finish, or build into another --index folder"
            ) from busy
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def being_written(index_dir: Path) -> bool:
    """Tell whether a build holds the index folder's writer lock right now."""
    path = index_dir / LOCK_FILE
    if fcntl is None or not path.is_file():
        return False
    with path.open("r", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def build_stamp(index_dir: Path) -> tuple[str, int, int] | None:
    """Return what changes when a build finishes (None: no index).

    That is the live version (tools.index_versions) and its manifest's mtime and size.
    """
    live = live_dir(index_dir)
    try:
        stat = (live / MANIFEST_FILE).stat()
    except FileNotFoundError:
        return None
    return live.name, stat.st_mtime_ns, stat.st_size
