"""Versions of an index folder: builds write a new one, readers keep the one they opened.

An index folder holds its build products in version folders (`v000001`, `v000002`, ...)
and a symlink `current` naming the live one. A build copies the live version into the next
(a staging folder), brings the copy up to date and then repoints `current` with one atomic
rename, so a reader that resolved `current` when it opened the index reads one version
whole, old or new, never a mix, and a reader opening the index mid-build gets the old one.
The folder's top level keeps a link per build product (`graph.json -> current/graph.json`),
so a path such as `INDEX/graph.json` still names the live file; what belongs to the folder
rather than to a version (threads' checkpoints, the OCR and triplet caches, the writer
lock) stays at the top level and is never copied.

An index built before versions existed (its products at the top level) is read as it is,
and its first staged build moves it to version folders. The version a reader may still
hold (the one before the live one) is kept; older ones are removed when a build publishes.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import uuid
from pathlib import Path

from tools.errors import IndexNotFoundError
from tools.manifest import Manifest
from tools.server_versions import drop_server_version

logger = logging.getLogger(__name__)

CURRENT = "current"
"""The symlink naming the live version folder."""
PRODUCTS = (
    "manifest.json",
    "graph.json",
    "documents.json",
    "chroma",
    "sparse",
    "vectors",
    "component_terms.npz",
    "sentences.json",
    "summaries.json",
)
"""What a build writes into a version folder (everything else stays at the top level)."""
_VERSION = re.compile(r"v(\d{6})")


def live_dir(index_dir: Path) -> Path:
    """Return the folder holding the live build products (the top level if unversioned)."""
    current = index_dir / CURRENT
    if current.is_symlink():
        return index_dir / os.readlink(current)
    return index_dir  # also a copy that followed the links (cp -r): its top level is whole


def versions(index_dir: Path) -> list[Path]:
    """Return the version folders of an index folder, oldest first."""
    if not index_dir.is_dir():
        return []
    found = [p for p in index_dir.iterdir() if _VERSION.fullmatch(p.name) and p.is_dir()]
    return sorted(found, key=lambda p: p.name)


def start_version(index_dir: Path) -> Path:
    """Return the staging folder a build writes: the next version, holding a copy of the live.

    A staging folder left by a build that stopped (newer than the live version) is taken
    up as it is, so a killed build resumes where it stopped. The copy is made under a
    temporary name and renamed when whole, so a build killed mid-copy leaves no half copy
    to resume from.
    """
    index_dir.mkdir(parents=True, exist_ok=True)
    live = live_dir(index_dir)
    found = versions(index_dir)
    if found and found[-1] != live and (live == index_dir or found[-1].name > live.name):
        logger.info("resuming the unfinished build in %s", found[-1])
        return found[-1]
    number = int(found[-1].name[1:]) + 1 if found else 1
    staging = index_dir / f"v{number:06d}"
    copying = index_dir / f".{staging.name}.copying"
    shutil.rmtree(copying, ignore_errors=True)  # a copy a killed build left half made
    copying.mkdir()
    for name in PRODUCTS:
        source = live / name
        if source.is_dir():
            shutil.copytree(source, copying / name, symlinks=False)
        elif source.is_file():
            shutil.copy2(source, copying / name)
    copying.rename(staging)
    return staging


def publish(index_dir: Path, staging: Path) -> None:
    """Make a finished staging folder the live version, atomically, then tidy up.

    Repoints `current` (a new link renamed over the old one), makes the top level's product
    names links through it, and removes versions older than the one just replaced.
    """
    previous = live_dir(index_dir)
    link = index_dir / f".{CURRENT}.{uuid.uuid4().hex}"
    link.symlink_to(staging.name, target_is_directory=True)
    current = index_dir / CURRENT
    if current.exists() and not current.is_symlink():  # a dereferenced copy of a link
        current.rename(index_dir / f".{CURRENT}-copy.{uuid.uuid4().hex}")
    os.replace(link, current)
    _link_products(index_dir)
    _remove_old(index_dir, keep={staging, previous})
    logger.info("published %s (was %s)", staging.name, previous.name)


def _link_products(index_dir: Path) -> None:
    """Make each top-level product name a link into `current` (moving legacy ones aside)."""
    for name in PRODUCTS:
        path = index_dir / name
        wanted = f"{CURRENT}/{name}"
        if path.is_symlink() and os.readlink(path) == wanted:
            continue
        if path.is_dir() and not path.is_symlink():  # an unversioned index's product
            path.rename(index_dir / f".{name}-unversioned.{uuid.uuid4().hex}")
        link = index_dir / f".{name}.{uuid.uuid4().hex}"
        link.symlink_to(wanted)
        os.replace(link, path)


def _remove_old(index_dir: Path, keep: set[Path]) -> None:
    """Remove versions and moved-aside folders no reader can still be using."""
    for version in versions(index_dir):
        if version not in keep:
            drop_server_version(version)
            shutil.rmtree(version, ignore_errors=True)
    if index_dir in keep:
        return  # an unversioned index was live until now: a reader may still hold it
    for path in index_dir.iterdir():
        if path.name.startswith(f".{CURRENT}-copy.") or "-unversioned." in path.name:
            shutil.rmtree(path, ignore_errors=True)


def check_updatable(index_dir: Path) -> None:
    """Refuse `fif build --update` where no finished index is live.

    Raises:
        IndexNotFoundError: If the folder holds no index whose last build finished.
    """
    if not Manifest.load(live_dir(index_dir)).complete:
        raise IndexNotFoundError(
            f"{index_dir}: its last build did not finish, so there is nothing to update; run "
            f"`fif build CORPUS --index {index_dir}` without --update (it resumes)"
        )
