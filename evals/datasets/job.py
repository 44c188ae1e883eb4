"""What one dataset conversion is asked to do: the options every adapter takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tools.errors import ConfigError


@dataclass(frozen=True)
class ConversionJob:
    """One conversion of a benchmark's raw files into a bundle.

    Every adapter takes one; what `split` may name and whether `images_dir` is read differ
    by benchmark, and each adapter's docstring says how.
    """

    raw_dir: Path
    """Folder with the benchmark's published files."""
    out_dir: Path
    """Bundle folder to write (corpus.jsonl, questions.jsonl, stats.json, images/)."""
    split: str = "dev"
    """The benchmark's split to convert (a label only for sets that publish one sample)."""
    limit: int | None = None
    """Convert only the first `limit` usable questions, in file order (None: all of them)."""
    images_dir: Path | None = None
    """Folder holding the image files, for the benchmarks with images outside raw_dir."""

    def check(self, dataset: str, splits: Sequence[str] | None = None, why: str = "") -> None:
        """Refuse a split the adapter cannot convert (saying why) and a limit below 1.

        Args:
            dataset: The benchmark's name, for the message.
            splits: The splits the adapter converts (None: any).
            why: Why the other splits are refused, e.g. they have no gold labels.

        Raises:
            ConfigError: If the split is not one of `splits` or `limit` < 1.
        """
        if splits is not None and self.split not in splits:
            raise ConfigError(
                f"{dataset} split {self.split!r} is not supported; use one of {', '.join(splits)}"
                + (f" ({why})" if why else "")
            )
        if self.limit is not None and self.limit < 1:
            raise ConfigError(f"limit must be at least 1 or None, got {self.limit}")
