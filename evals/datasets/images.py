"""Put a benchmark's image files into a bundle's `images/` folder, counting what could not be."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from evals.datasets.raw import ProblemLog

logger = logging.getLogger(__name__)

IMAGE_FOLDER = "images"
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\xff\xd8\xff", ".jpg"),
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"GIF8", ".gif"),
    (b"RIFF", ".webp"),
    (b"BM", ".bmp"),
)


def image_suffix(data: bytes) -> str:
    """Return the file suffix an image's leading bytes announce (`.img` when unknown)."""
    for signature, suffix in _SIGNATURES:
        if data.startswith(signature):
            return suffix
    return ".img"


def find_image_file(images_dir: Path, names: Sequence[str]) -> Path | None:
    """Return the first of the relative names that is a file under images_dir, if any."""
    for name in names:
        candidate = images_dir / name
        if candidate.is_file():
            return candidate
    return None


class ImageCopier:
    """Copy image files into `<out_dir>/images/` and hand out bundle-relative image paths.

    Files are copied, not symlinked: the corpus builder resolves image paths and refuses any
    that leave the bundle folder. Without an images folder every image keeps its intended
    bundle path, and the count of files still to be put there goes into the stats.
    """

    def __init__(self, out_dir: Path, images_dir: Path | None, problems: ProblemLog) -> None:
        self.images_dir = images_dir
        self.target_dir = out_dir / IMAGE_FOLDER
        self.problems = problems
        self.copied = 0
        self.missing = 0
        self.not_copied = 0

    @property
    def enabled(self) -> bool:
        """Return whether an images folder was given, so sources are worth looking up."""
        return self.images_dir is not None

    def place(self, name: str, source: Path | bytes | None) -> str:
        """Copy (or write) one image into the bundle and return its bundle-relative path.

        Args:
            name: The file name to use inside `images/`; any folder part is dropped.
            source: The file to copy, the image bytes to write, or None if it was not found.
        """
        file_name = PurePosixPath(name.replace("\\", "/")).name or "unnamed.img"
        relative = f"{IMAGE_FOLDER}/{file_name}"
        if self.images_dir is None:
            self.not_copied += 1
            return relative
        if source is None:
            self.missing += 1
            self.problems.add(
                "image_missing",
                f"image {name!r} not found under "
                f"{self.images_dir}; its component keeps the path {relative} "
                "without a file (check the images folder)",
            )
            return relative
        self.target_dir.mkdir(parents=True, exist_ok=True)
        target = self.target_dir / file_name
        if isinstance(source, bytes):
            target.write_bytes(source)
        elif not (target.is_file() and target.stat().st_size == source.stat().st_size):
            shutil.copyfile(source, target)
        self.copied += 1
        return relative

    def stats(self) -> dict[str, int]:
        """Return how many images were copied, missing from the images folder, or not copied."""
        return {
            "images_copied": self.copied,
            "images_missing": self.missing,
            "images_not_copied": self.not_copied,
        }

    def log_summary(self) -> None:
        """Warn once when images were referenced but no images folder was given."""
        if self.not_copied:
            logger.warning(
                "%d image components reference files under %s that were not copied "
                "(no images folder given); put the files there or convert again "
                "with images_dir",
                self.not_copied,
                self.target_dir,
            )
