"""List the input files of a corpus folder: by suffix, hidden files and folders skipped."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from tools.errors import CorpusFormatError


def listed_files(folder: Path, suffixes: Collection[str]) -> list[Path]:
    """Return the paths under a folder with one of the (lower-case) suffixes, in path order.

    A path with a part starting with "." (a hidden file or folder) is left out.
    """
    return [
        path
        for path in sorted(folder.rglob("*"))
        if path.suffix.lower() in suffixes
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    ]


def folder_files(folder: Path, suffixes: Collection[str], what: str) -> list[Path]:
    """Return `listed_files` of a folder that must exist.

    Raises:
        CorpusFormatError: If `folder` is not a folder; the message says a folder of `what`
            was expected.
    """
    if not folder.is_dir():
        raise CorpusFormatError(f"{folder}: not a folder; expected a folder of {what}")
    return listed_files(folder, suffixes)
