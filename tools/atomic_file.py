"""Write a file so readers see the old content or the new, never half of it.

Text files, and numpy archives that carry a JSON header (`write_npz_atomically`, read back
by `read_npz`: the build's stores of component terms and of vectors).

Hand-written because the stdlib has no atomic write and the one package for it
(atomicwrites) is unmaintained; this is a temp file beside the target and `os.replace`.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import numpy as np

logger = logging.getLogger(__name__)

UNREADABLE_ARCHIVE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile)
"""What reading a missing, garbled or truncated .npz archive raises."""


@contextmanager
def atomic_open(path: Path) -> Iterator[TextIO]:
    """Yield a text handle whose content replaces `path` when the block ends without error.

    The temp file sits beside the target (so the rename stays on one file system) under a
    unique name (so concurrent writers never share it), and is removed if the block fails.
    A symlink is written through (an index folder's top level links into its live version).
    """
    path = _through_link(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with tmp.open("x", encoding="utf-8") as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _through_link(path: Path) -> Path:
    """Return the file a symlink names (itself if not one), so a write replaces the target."""
    return path.resolve() if path.is_symlink() else path


def write_text_atomically(path: Path, text: str) -> None:
    """Replace the content of `path` with `text` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def write_npz_atomically(path: Path, meta: dict[str, Any], **arrays: np.ndarray) -> None:
    """Replace `path` with an .npz archive of `arrays` and a JSON `meta` header, atomically."""
    path = _through_link(path)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp.npz")
    header = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    try:
        np.savez(tmp, meta=header, **arrays)  # type: ignore[arg-type]  # stub: allow_pickle
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_npz(
    path: Path, accept: Callable[[dict[str, Any]], bool], instead: str, arrays: bool = True
) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """Return an archive's meta and arrays if `accept(meta)`, else None.

    The arrays are read only once the meta is accepted, and not at all when `arrays` is
    false (the meta alone, with no arrays). An unreadable archive is said in a warning
    naming the file and what happens `instead`, and gives None.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(data["meta"].tobytes())
            if not isinstance(meta, dict) or not accept(meta):
                return None
            names = [name for name in data.files if name != "meta"] if arrays else []
            return meta, {name: data[name] for name in names}
    except UNREADABLE_ARCHIVE as err:
        logger.warning("%s is unreadable (%s); %s", path, err, instead)
        return None
