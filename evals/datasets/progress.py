"""Count the raw records a conversion reads, on a progress bar the caller opts into.

The adapters keep one signature (`Adapter`), so the bar is ambient: `conversion_progress` opens it
for the block it wraps (a context variable, one per thread), and the readers call
`record_read`, which does nothing when no bar is open. Library calls and tests stay silent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from tqdm import tqdm

BAR_DELAY_SECONDS = 0.5
"""A conversion that ends (or fails) sooner shows no bar, so quick runs and errors stay clean."""

_bar: ContextVar[tqdm[None] | None] = ContextVar("conversion_progress", default=None)


@contextmanager
def conversion_progress(description: str, enabled: bool = True) -> Iterator[tqdm[None]]:
    """Show a progress bar on stderr counting the raw records read inside the block.

    Args:
        description: The bar's label, e.g. `convert mmqa`.
        enabled: Whether to show the bar at all (`--no-progress` turns it off).
    """
    bar: tqdm[None] = tqdm(
        desc=description,
        unit=" records",
        unit_scale=True,
        disable=not enabled,
        delay=BAR_DELAY_SECONDS,
        leave=False,
    )
    token = _bar.set(bar)
    try:
        yield bar
    finally:
        _bar.reset(token)
        bar.close()


def record_read(count: int = 1) -> None:
    """Advance the open conversion bar by records read (a line, a question, a table file)."""
    bar = _bar.get()
    if bar is not None:
        bar.update(count)
