"""Write a file so readers see the old content or the new, never half of it.

Hand-written because the stdlib has no atomic write and the one package for it
(atomicwrites) is unmaintained; this is a temp file beside the target and `os.replace`.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_open(path: Path) -> Iterator[TextIO]:
    """Yield a text handle whose content replaces `path` when the block ends without error.

    The temp file sits beside the target (so the rename stays on one file system) under a
    unique name (so concurrent writers never share it), and is removed if the block fails.
    """
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with tmp.open("x", encoding="utf-8") as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(path: Path, text: str) -> None:
    """Replace the content of `path` with `text` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)
