"""Load on one `fif serve`: N concurrent searches and offline asks beside the in-process API.

Usage: python benchmarks/serve_load.py INDEX [--questions Q.jsonl] [--levels 1,4,16]
       [--searches 96] [--asks 16] [--out runs/serve_load]

INDEX is written to (the asks' checkpoints go next to it): give a copy, e.g.
`cp -r .fif/index /tmp/load-index`. The script starts one server on a free loopback
port, then for each N runs the same queries through it (N client threads) and through
the library in this process (N threads over `tools.search.dense_search` and the registry's
`fif` ask), alternating the two paths batch by batch, after one warm-up pass of every
search query on both paths. It prints and writes (OUT/serve_load.json) throughput and
p50/p95 latency per kind, path and N; it fails when a request fails or a thread's
checkpoints hold another question than the one asked there.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import threading
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from serve_process import start_serve

from graph_agent.replay import sqlite_checkpointer
from graph_agent.systems import run_system
from state.settings import RunSettings
from tools.corpus_index import open_index
from tools.search import dense_search

REPO = Path(__file__).resolve().parents[1]
SAMPLE_QUESTIONS = REPO / "samples" / "ottqa-sample" / "questions.jsonl"
K = 10
ROUND_PER_WORKER = 4
"""Inputs per worker in one batch before the other path takes its turn."""


def percentile(values: list[float], share: float) -> float:
    """Return the nearest-rank percentile of a list of latencies."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def timed_batch(
    call: Callable[[str], Any], inputs: list[str], workers: int
) -> tuple[list[float], float]:
    """Run `call` on every input with `workers` threads; return latencies (ms) and wall (s)."""
    latencies: list[float] = []

    def timed(item: str) -> None:
        started = time.perf_counter()
        call(item)
        latencies.append((time.perf_counter() - started) * 1000.0)

    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(timed, inputs))  # re-raises the first failure
    return latencies, time.perf_counter() - started


def compare(
    calls: dict[str, Callable[[str], Any]], inputs: list[str], workers: int
) -> dict[str, dict[str, float]]:
    """Measure each path on the same inputs, alternating paths batch by batch.

    The machine is shared: alternating batches of `ROUND_PER_WORKER * workers` inputs
    spreads any change in background load over both paths instead of one.
    """
    size = max(1, ROUND_PER_WORKER * workers)
    latencies: dict[str, list[float]] = {name: [] for name in calls}
    walls = dict.fromkeys(calls, 0.0)
    for start in range(0, len(inputs), size):
        for name, call in calls.items():
            batch, wall = timed_batch(call, inputs[start : start + size], workers)
            latencies[name] += batch
            walls[name] += wall
    return {
        name: {
            "requests": len(latencies[name]),
            "per_s": round(len(latencies[name]) / walls[name], 2),
            "p50_ms": round(statistics.median(latencies[name]), 2),
            "p95_ms": round(percentile(latencies[name], 0.95), 2),
        }
        for name in calls
    }


class ServerPath:
    """Searches and asks through the HTTP API; remembers which thread asked what.

    Each client thread keeps one keep-alive connection (stdlib http.client: the lightest
    Python client, so the figures are the server's, not a client library's).
    """

    def __init__(self, url: str) -> None:
        self.address = urllib.parse.urlsplit(url).netloc
        self.local = threading.local()
        self.asked: dict[str, str] = {}

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        if not hasattr(self.local, "connection"):
            self.local.connection = http.client.HTTPConnection(self.address, timeout=300)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data else {}
        self.local.connection.request(method, path, body=data, headers=headers)
        response = self.local.connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {payload[:300]!r}")
        return json.loads(payload)

    def search(self, query: str) -> None:
        """Search through the server; a non-200 answer raises."""
        self._call("GET", "/api/search?" + urllib.parse.urlencode({"q": query, "k": K}))

    def ask(self, question: str) -> None:
        """Ask FiF through the server (offline) and note the thread it ran in."""
        thread = uuid.uuid4().hex[:12]
        self._call("POST", "/api/ask", {"question": question, "k": K, "thread_id": thread})
        self.asked[thread] = question


class LibraryPath:
    """The same searches and asks through the library in this process."""

    def __init__(self, index: Path) -> None:
        self.index = open_index(index)
        self.context = RunSettings.from_env({"index_dir": str(index), "top_k": K})
        self.asked: dict[str, str] = {}

    def search(self, query: str) -> None:
        """Search in process, exactly as /api/search does."""
        dense_search(self.index, query, "subcomponent", K)

    def ask(self, question: str) -> None:
        """Ask FiF in process with the same SQLite checkpoints as the server."""
        thread = uuid.uuid4().hex[:12]
        run_system("fif", question, self.context, thread)
        self.asked[thread] = question


def unmixed(index: Path, asked: dict[str, str]) -> list[str]:
    """Return the threads whose checkpoints hold another question or more than one run."""
    from graph_agent.fif_graph import fif_graph

    mixed = []
    with sqlite_checkpointer(index) as saver:
        graph = fif_graph(saver)
        for thread, question in asked.items():
            history = list(graph.get_state_history({"configurable": {"thread_id": thread}}))
            inputs = [s for s in history if (s.metadata or {}).get("source") == "input"]
            questions = {s.values.get("question") for s in history if s.values.get("question")}
            if len(inputs) != 1 or questions != {question}:
                mixed.append(thread)
    return mixed


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Measure every level on both paths; return the figures."""
    lines = args.questions.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    searches = [questions[n % len(questions)] for n in range(args.searches)]
    asks = questions[: args.asks]
    process, port = start_serve(args.index)
    url = f"http://127.0.0.1:{port}"
    figures: dict[str, Any] = {"levels": {}}
    try:
        paths = {"server": ServerPath(url), "in_process": LibraryPath(args.index)}
        for path in paths.values():
            timed_batch(path.search, sorted(set(searches)), 1)  # warm: models, caches, BM25
        for level in args.levels:
            row: dict[str, Any] = {}
            for kind, inputs in (("search", searches), ("ask", asks)):
                calls = {name: getattr(path, kind) for name, path in paths.items()}
                for name, stats in compare(calls, inputs, level).items():
                    row[f"{kind}_{name}"] = stats
            figures["levels"][str(level)] = row
            print(f"N={level}: " + json.dumps(row))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    for name, path in paths.items():
        mixed = unmixed(args.index, path.asked)
        if mixed:
            raise SystemExit(f"{name}: checkpoints of threads {mixed[:5]} mix runs")
        figures[f"threads_checked_{name}"] = len(path.asked)
    one = figures["levels"].get("1")
    if one:
        ratio = one["search_server"]["p50_ms"] / one["search_in_process"]["p50_ms"]
        figures["search_p50_ratio_at_1"] = round(ratio, 2)
    return figures


def main() -> None:
    """Parse the arguments, run the load and write OUT/serve_load.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("index", type=Path)
    parser.add_argument("--questions", type=Path, default=SAMPLE_QUESTIONS)
    parser.add_argument("--levels", default="1,4,16")
    parser.add_argument("--searches", type=int, default=96)
    parser.add_argument("--asks", type=int, default=16)
    parser.add_argument("--out", type=Path, default=Path("runs/serve_load"))
    args = parser.parse_args()
    args.levels = [int(level) for level in args.levels.split(",")]
    figures = run(args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "serve_load.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
