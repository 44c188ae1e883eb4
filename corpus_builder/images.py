"""Check image files before anything decodes them: inside the corpus, present, sane, no bomb."""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from state.corpus import IngestReport

logger = logging.getLogger(__name__)

MAX_IMAGE_BYTES = 40 * 1024 * 1024
MAX_IMAGE_PIXELS = 40_000_000
"""Well above a 6000x6000 photo; Pillow's own bomb threshold is about 89 Mpx."""


def byte_size(count: int) -> str:
    """Write a byte count in the largest binary unit that keeps it at least 1 ("1.5 KiB")."""
    value, unit = float(count), "bytes"
    for bigger in ("KiB", "MiB", "GiB"):
        if round(value, 1) < 1024:
            break
        value, unit = value / 1024, bigger
    if unit == "bytes":
        return f"{count} bytes"
    shown = round(value, 1)
    return f"{shown:.0f} {unit}" if shown.is_integer() else f"{shown:.1f} {unit}"


@dataclass(frozen=True)
class ImageGuard:
    """Validate image paths of one corpus against its root folder."""

    root: Path
    max_bytes: int = MAX_IMAGE_BYTES
    max_pixels: int = MAX_IMAGE_PIXELS

    def check(self, relative: str, where: str, report: IngestReport) -> str | None:
        """Return the image's absolute path, or None after reporting why it cannot be used."""
        problem, path = self._locate(relative)
        if problem is None and path is not None:
            problem = self._inspect(path)
        if problem is not None:
            report.skip(where, f"image {relative!r}: {problem}")
            return None
        return str(path)

    def _locate(self, relative: str) -> tuple[str | None, Path | None]:
        root = self.root.resolve()
        candidate = Path(relative)
        path = (candidate if candidate.is_absolute() else root / candidate).resolve()
        if not path.is_relative_to(root):
            return f"path escapes the corpus folder {root}; keep images inside it", None
        if not path.is_file():
            return "file not found", None
        size = path.stat().st_size
        if size > self.max_bytes:
            limit = byte_size(self.max_bytes)
            return f"file is {byte_size(size)}, over the {limit} limit", None
        return None, path

    def _inspect(self, path: Path) -> str | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                with Image.open(path) as image:
                    width, height = image.size
                    if width * height > self.max_pixels:
                        return (
                            f"{width}x{height} pixels exceeds {self.max_pixels:,}: "
                            "possible decompression bomb"
                        )
                    image.verify()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as err:
            return f"decompression bomb refused ({err})"
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as err:
            return f"corrupt or unsupported image ({type(err).__name__}: {err})"
        return None
