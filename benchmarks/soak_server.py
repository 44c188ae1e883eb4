"""The server side of the soak benchmark: start, kill and restart `fif serve`, sample its RSS."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from serve_process import start_serve

SAMPLE_EVERY_S = 2.0
WARM_SHARE, WINDOW_SHARE = 0.15, 0.2
"""RSS growth compares the median of the window after the warm-up with the last window."""


def start_server(
    index: Path, runs: Path, port: int | None, clients: int
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `fif serve` (on `port`, or a free one) and wait until it answers; return it."""
    options = ["--runs", str(runs), "--runs-per-client", str(clients)]
    return start_serve(index, options, port=port, wait_s=300, poll_s=0.3)


def stop_server(process: subprocess.Popen[bytes], how: signal.Signals) -> None:
    """Signal the server's whole process group (its embedding helper too) and reap it."""
    try:
        os.killpg(process.pid, how)
    except ProcessLookupError:
        return
    process.wait(timeout=60)


def rss_kb(pid: int) -> int:
    """Return the resident memory of a process and its children, in kB (0 once it is gone)."""
    total = 0
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0
    for each in [pid, *map(int, children)]:
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        line = next((li for li in status.splitlines() if li.startswith("VmRSS:")), "")
        total += int(line.split()[1]) if line else 0
    return total


def sample_rss(server: Any, samples: list[tuple[float, int, int]], stop: threading.Event) -> None:
    """Append (time, server pid, RSS kB) every SAMPLE_EVERY_S until stopped."""
    while not stop.wait(SAMPLE_EVERY_S):
        pid = server.process.pid
        kb = rss_kb(pid)
        if kb:
            samples.append((time.monotonic(), pid, kb))


def rss_growth(samples: list[tuple[float, int, int]]) -> dict[str, Any]:
    """Return each server lifetime's RSS (MB) after warm-up and at the end, and its growth."""
    lifetimes: dict[int, list[tuple[float, int]]] = {}
    for moment, pid, kb in samples:
        lifetimes.setdefault(pid, []).append((moment, kb))
    rss, growth = {}, {}
    for n, series in enumerate(lifetimes.values(), start=1):
        if len(series) < 6:
            continue
        first, last = series[0][0], series[-1][0]
        span = last - first
        warm = [
            kb
            for t, kb in series
            if first + WARM_SHARE * span <= t <= first + (WARM_SHARE + WINDOW_SHARE) * span
        ]
        end = [kb for t, kb in series if t >= last - WINDOW_SHARE * span]
        start_mb, end_mb = statistics.median(warm) / 1024, statistics.median(end) / 1024
        rss[f"lifetime_{n}"] = {"after_warmup": round(start_mb, 1), "end": round(end_mb, 1)}
        growth[f"lifetime_{n}"] = round((end_mb - start_mb) / start_mb, 4)
    return {"rss_mb": rss, "growth": growth}
