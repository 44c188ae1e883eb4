"""Wall time of fresh `fif search` / `fif ask` processes beside `import chromadb`, the floor.

Usage:
  python benchmarks/cli_startup.py --index DIR [--runs 5] [--question TEXT] [--no-server]
      [--baseline CHECKOUT]

Each round runs every command once, as a new process, in a rotating order (so a busy
machine slows all of them alike): `python -c "import chromadb"` (what a process that opens
Chroma pays; `fif search` and FiF on an index with a current vector copy do not), `fif
search` and `fif ask` opening the index, and, unless --no-server,
the same two with `--server` against a `fif serve` this script starts on a free loopback
port for the index (and stops at the end). --baseline adds `fif search` and `fif ask` run
from another checkout's root (e.g. `git archive main | tar -x -C /tmp/main`), so a change is
measured beside what it changes in the same run. Prints each command's median and its ratio to the
floor. Run it from the repository root with the project's python.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

QUESTION = "Which team won the 1998 season?"
START_S = 300.0


def commands(
    index: Path, question: str, server: str | None, baseline: Path | None = None
) -> dict[str, list[str]]:
    """Return the timed command lines by label (a baseline's run from its root)."""
    fif = [sys.executable, "-m", "fif"]
    found = {
        "import chromadb (floor)": [sys.executable, "-c", "import chromadb"],
        "fif search": [*fif, "search", question, "--index", str(index)],
        "fif ask": [*fif, "ask", question, "--index", str(index)],
    }
    if server:
        found["fif search --server"] = [*fif, "search", question, "--server", server]
        found["fif ask --server"] = [*fif, "ask", question, "--server", server]
    if baseline:
        for name in ("search", "ask"):
            line = [*fif, name, question, "--index", str(index.resolve())]
            found[f"fif {name} (baseline)"] = ["env", "-C", str(baseline), *line]
    return found


def wall(command: list[str]) -> float:
    """Run a command to its end (output discarded) and return its wall time in seconds."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


@contextmanager
def served(index: Path) -> Iterator[str]:
    """Start `fif serve` for the index on a free loopback port; yield its URL; stop it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "fif", "serve", "--index", str(index), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/indices", timeout=5):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("fif serve did not start; run it by hand") from None
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def measure(lines: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    """Run every command `runs` times, rotating the order each round; return the times."""
    labels = list(lines)
    times: dict[str, list[float]] = {label: [] for label in labels}
    for round_ in range(runs):
        shift = round_ % len(labels)
        for label in labels[shift:] + labels[:shift]:
            times[label].append(wall(lines[label]))
    return times


def report(times: dict[str, list[float]]) -> None:
    """Print each command's median, its runs and its ratio to the floor."""
    floor = statistics.median(times["import chromadb (floor)"])
    print(f"{'command':28} {'median s':>9} {'x floor':>8}  runs (s)")
    for label, values in times.items():
        median = statistics.median(values)
        runs = " ".join(f"{value:.2f}" for value in values)
        print(f"{label:28} {median:9.2f} {median / floor:8.2f}  {runs}")


def main() -> None:
    """Parse the arguments, warm the query encoder cache once, time and report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--no-server", action="store_true")
    parser.add_argument("--baseline", type=Path, help="Another checkout's root to time too.")
    args = parser.parse_args()
    wall(commands(args.index, args.question, None)["fif search"])  # saves the query encoder
    if args.no_server:
        report(measure(commands(args.index, args.question, None, args.baseline), args.runs))
        return
    with served(args.index) as url:
        report(measure(commands(args.index, args.question, url, args.baseline), args.runs))


if __name__ == "__main__":
    main()
