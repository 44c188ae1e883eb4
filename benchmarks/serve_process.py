"""Start `fif serve` from this checkout for a benchmark and wait until it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start_serve(
    index: Path,
    options: Sequence[str] = (),
    *,
    port: int | None = None,
    wait_s: int = 180,
    poll_s: float = 0.5,
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `fif serve --index INDEX` in its own process group and wait for /api/systems.

    Args:
        index: The index folder to serve.
        options: More `fif serve` options, e.g. ["--runs", RUNS].
        port: The loopback port; None picks a free one.
        wait_s: How long the server may take to answer (loading models included).
        poll_s: Seconds between two tries.

    Returns:
        The server process (stop it with `os.killpg(process.pid, ...)`) and its port.

    Raises:
        SystemExit: If the server exits or does not answer within wait_s.
    """
    if port is None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
    command = [sys.executable, "-m", "fif", "serve", "--index", str(index), "--port", str(port)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([*command, *options], cwd=REPO, env=env, start_new_session=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/systems", timeout=2):
                return process, port
        except OSError:  # refused until the server listens
            if process.poll() is not None:
                raise SystemExit(f"fif serve exited with {process.returncode}") from None
            time.sleep(poll_s)
    raise SystemExit(f"fif serve did not start in {wait_s} s")
