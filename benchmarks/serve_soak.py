"""Soak `fif serve`: clients search, ask, fork and browse evals through a rebuild and a kill.

Usage: python benchmarks/serve_soak.py [--minutes 10] [--clients 16] [--corpus DIR]
       [--embedder SPEC] [--prebuilt INDEX] [--work DIR] [--out runs/serve_soak]

The script builds the corpus (default: samples/ottqa-sample) into WORK/index (or copies
`--prebuilt`, an index of that corpus built with the same embedder), starts one
`fif serve` on a free loopback port and runs N client threads until the time is up. Each
client loops over a seeded mix: searches (dense, sparse, hybrid), offline runs of fif or
dense (POST /api/runs, then its event stream to the end), forks of its own FiF threads,
and eval browsing (the thread list, an eval run). At 35% of the time one document is added
to the corpus and `fif build` updates the served index (the server keeps answering from
the old version while the build stages the new one, then reopens it); at 65% the server is
killed (SIGKILL) and restarted on the same port. It prints and writes OUT/serve_soak.json:
requests by kind, errors outside the restart window (503s during the build are counted
apart), threads whose result arrived but whose checkpoints are missing (lost) or hold
another question (mixed), and the server's RSS growth over each of its two lifetimes. It
exits 1 when there is an error outside the restart window, a lost or mixed thread, or RSS
growth of 10% or more.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from soak_clients import Client, Log, ServerRef
from soak_server import rss_growth, sample_rss, start_server, stop_server

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "samples" / "ottqa-sample"
BUILD_AT, KILL_AT = 0.35, 0.65
RSS_LIMIT = 0.10


def prepare(
    work: Path, corpus: Path, embedder: str | None, prebuilt: Path | None
) -> tuple[Path, Path, list[str]]:
    """Copy the corpus, build it (or copy its prebuilt index), write an eval runs folder.

    Returns the index folder, the runs folder and the corpus's questions.
    """
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(corpus, work / "corpus")
    index = work / "index"
    if prebuilt is not None:
        shutil.copytree(prebuilt, index)
    else:
        build(work / "corpus", index, embedder)
    runs = work / "runs" / "soak"
    runs.mkdir(parents=True)
    (runs / "summary.md").write_text("# Evaluation summary\n\n| system | R@1 |\n|---|---|\n")
    (runs / "run_config.json").write_text("{}")
    (runs / "results.jsonl").write_text(json.dumps({"qid": "q1", "system": "fif"}) + "\n")
    lines = (work / "corpus" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    return index, runs.parent, questions


def build(corpus: Path, index: Path, embedder: str | None) -> float:
    """Run `fif build` on the corpus into the index; return its seconds (fails loudly)."""
    command = [sys.executable, "-m", "fif", "build", str(corpus), "--index", str(index)]
    command += ["--no-progress"] + (["--embedder", embedder] if embedder else [])
    started = time.monotonic()
    subprocess.run(command, cwd=REPO, env=_env(), check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def add_document(corpus: Path) -> str:
    """Append a copy of the corpus's first document under a new id; return that id."""
    path = corpus / "corpus.jsonl"
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    doc_id = "soak_added_document"
    old = first["doc_id"]
    first = json.loads(json.dumps(first).replace(f'"{old}::', f'"{doc_id}::'))
    first.update(doc_id=doc_id, title=f"{first.get('title', '')} (soak copy)")
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(first) + "\n")
    return doc_id


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Soak the server; return the figures."""
    index, runs, questions = prepare(args.work, args.corpus, args.embedder, args.prebuilt)
    seconds = args.minutes * 60.0
    server = ServerRef(*start_server(index, runs, None, args.clients))
    log, stop = Log(), threading.Event()
    samples: list[tuple[float, int, int]] = []
    sampler = threading.Thread(target=sample_rss, args=(server, samples, stop), daemon=True)
    sampler.start()
    clients = [
        Client(n, server, log, questions, random.Random(args.seed + n)) for n in range(args.clients)
    ]
    threads = [threading.Thread(target=c.loop, args=(stop,), daemon=True) for c in clients]
    started = time.monotonic()
    log.started = started
    for thread in threads:
        thread.start()
    events: dict[str, Any] = {}
    _sleep_until(started + BUILD_AT * seconds)
    added = add_document(args.work / "corpus")
    events["build_start"] = time.monotonic() - started
    events["build_s"] = round(build(args.work / "corpus", index, args.embedder), 1)
    events["build_end"] = time.monotonic() - started
    _sleep_until(started + KILL_AT * seconds)
    events["kill"] = time.monotonic() - started
    log.window_open()
    stop_server(server.process, signal.SIGKILL)
    server.swap(*start_server(index, runs, server.port, args.clients))
    events["restarted"] = time.monotonic() - started
    log.window_close()
    _sleep_until(started + seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    reloaded = server.get(f"/api/components/{added}")[0] == 200
    stop_server(server.process, signal.SIGTERM)
    return figures(log, clients, index, samples, events, reloaded)


def figures(
    log: Log,
    clients: list[Client],
    index: Path,
    samples: list[tuple[float, int, int]],
    events: dict[str, Any],
    reloaded: bool,
) -> dict[str, Any]:
    """Count requests, errors, lost and mixed threads, and RSS growth."""
    from serve.branch_logs import thread_history

    asked = {tid: q for client in clients for tid, q in client.finished.items()}
    lost, mixed = [], []
    for thread_id, question in asked.items():
        found = thread_history(str(index), thread_id)
        if found is None:
            lost.append(thread_id)
        elif {s.values.get("question") for s in found[1] if s.values.get("question")} != {question}:
            mixed.append(thread_id)
    growth = rss_growth(samples)
    return {
        "requests": log.counts(),
        "errors_outside_restart_window": log.errors_outside(),
        "first_errors": log.first_errors(),
        "refused_during_build_503": log.refused_503,
        "in_restart_window": log.in_window,
        "fif_threads_checked": len(asked),
        "lost_threads": lost,
        "mixed_threads": mixed,
        "rss_mb": growth["rss_mb"],
        "rss_growth": growth["growth"],
        "reopened_after_build": reloaded,
        "events_s": {k: round(v, 1) if isinstance(v, float) else v for k, v in events.items()},
    }


def _sleep_until(moment: float) -> None:
    while (left := moment - time.monotonic()) > 0:
        time.sleep(min(left, 1.0))


def main() -> None:
    """Parse the arguments, soak, print and write OUT/serve_soak.json; exit 1 on a failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--corpus", type=Path, default=SAMPLE)
    parser.add_argument("--embedder", default=None, help="Text embedder spec (default: fif's).")
    parser.add_argument(
        "--prebuilt", type=Path, default=None, help="An index of --corpus to copy, not build."
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/fif-serve-soak"))
    parser.add_argument("--out", type=Path, default=Path("runs/serve_soak"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))  # this checkout's serve, for the thread check
    result = run(args)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "serve_soak.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))  # noqa: T201 (a benchmark script reports on stdout)
    failed = (
        result["errors_outside_restart_window"]
        or result["lost_threads"]
        or result["mixed_threads"]
        or max(result["rss_growth"].values(), default=0.0) >= RSS_LIMIT
        or not result["reopened_after_build"]
    )
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
