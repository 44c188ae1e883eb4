"""The helper's pipe frames: an answer that arrives in parts is read whole."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from tools.embed_process import VECTORS, EmbedProcessError, read_frame, write_frame


class Trickle(io.RawIOBase):
    """An unbuffered pipe's reading end: each read returns at most a few bytes."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        part, self.data = self.data[: min(size, self.step)], self.data[min(size, self.step) :]
        return part


def test_a_frame_that_arrives_in_parts_is_read_whole() -> None:
    sent = io.BytesIO()
    payload = bytes(range(256)) * 40  # over a pipe's 4 KiB atomic write
    write_frame(sent, VECTORS, payload)
    assert read_frame(Trickle(sent.getvalue(), step=1000)) == (VECTORS, payload)


def test_a_frame_cut_short_is_an_error() -> None:
    sent = io.BytesIO()
    write_frame(sent, VECTORS, b"x" * 100)
    with pytest.raises(EmbedProcessError, match="mid-answer"):
        read_frame(Trickle(sent.getvalue()[:50], step=7))
    with pytest.raises(EmbedProcessError, match="closed its output"):
        read_frame(Trickle(b"", step=7))


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="no SCHED_BATCH on this system")
def test_the_helper_asks_for_batch_scheduling() -> None:
    """A process of its own, so the test run keeps its scheduling."""
    check = (
        "import os; from tools.embed_process import batch_scheduling; "
        "assert batch_scheduling(); assert os.sched_getscheduler(0) == os.SCHED_BATCH"
    )
    subprocess.run([sys.executable, "-c", check], check=True, timeout=60)
