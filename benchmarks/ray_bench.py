"""`fif build --ray` and `fif eval --ray` on a local Ray against one process, on a real bundle.

Usage: python benchmarks/ray_bench.py DATA/hotpotqa-train100 [--limit 20] [--out runs/ray-bench]

Runs the CLI as a user would, each command in a fresh process: `fif build BUNDLE` and
`fif build BUNDLE --ray` (a local Ray on this machine's CPUs, started by the command and
counted in its time), then `fif eval --compare dense,fif --limit N` over the first index,
once in one process and once with `--ray`. Prints and writes (OUT/ray_bench.json) each
wall time, the Ray/one-process ratio, the build's stage split, the load average before
each command, and whether the indices and the rankings are identical.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from tools.index import INDEX_LAYERS
from tools.manifest import Manifest
from tools.vector_mirror import read_mirror

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = "dense,fif"
MODES: tuple[tuple[str, list[str]], ...] = (("single", []), ("ray", ["--ray"]))


def fif(*args: str) -> dict[str, float]:
    """Run `fif ARGS` in a fresh process from the checkout; return its wall time and load."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "fif", *args], cwd=ROOT, check=True)
    return {"wall_s": round(time.perf_counter() - started, 1), "load_before": round(load, 2)}


def same_index(single: Path, spread: Path) -> bool:
    """Return True when both indices hold the same graph and the same vectors of every layer."""
    if (single / "graph.json").read_bytes() != (spread / "graph.json").read_bytes():
        return False
    first, second = Manifest.load(single), Manifest.load(spread)
    for layer in INDEX_LAYERS:
        mine = read_mirror(single, layer, first.vectors_token)
        theirs = read_mirror(spread, layer, second.vectors_token)
        if (mine is None) != (theirs is None):
            return False
        if mine is not None and theirs is not None:
            if mine[0] != theirs[0] or not np.array_equal(mine[1], theirs[1]):
                return False
    return True


def rankings(out_dir: Path) -> dict[tuple[str, str], list[str]]:
    """Return each (question, system) pair's ranking from a run's results.jsonl."""
    lines = (out_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {(r["qid"], r["system"]): r["ranking"] for r in map(json.loads, lines)}


def measure(bundle: Path, work: Path, limit: int) -> dict[str, Any]:
    """Build and evaluate both ways; return the figures."""
    figures: dict[str, Any] = {"bundle": bundle.name, "cpus": os.cpu_count(), "questions": limit}
    for name, extra in MODES:
        index = work / name / "index"
        figures[f"build_{name}"] = fif("build", str(bundle), "--index", str(index),
                                       "--no-progress", *extra)  # fmt: skip
        figures[f"build_{name}"]["timings_s"] = Manifest.load(index).timings
    figures["build_ratio"] = round(
        figures["build_ray"]["wall_s"] / figures["build_single"]["wall_s"], 3
    )
    figures["index_identical"] = same_index(work / "single" / "index", work / "ray" / "index")
    built = str(work / "single" / "index")
    for name, extra in MODES:
        where = ["--dataset", str(bundle), "--index", built, "--out", str(work / f"eval-{name}")]
        figures[f"eval_{name}"] = fif("eval", *where, "--compare", SYSTEMS, "--limit", str(limit),
                                      "--no-progress", *extra)  # fmt: skip
    figures["eval_ratio"] = round(
        figures["eval_ray"]["wall_s"] / figures["eval_single"]["wall_s"], 3
    )
    figures["rankings_identical"] = rankings(work / "eval-single") == rankings(work / "eval-ray")
    return figures


def main() -> None:
    """Measure, print a summary and write the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--limit", type=int, default=20, help="questions evaluated")
    parser.add_argument("--out", type=Path, default=Path("runs/ray-bench"))
    parser.add_argument("--keep", type=Path, help="build and evaluate here (kept); default: temp")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fif-ray-bench-") as tmp:
        work = args.keep or Path(tmp)
        shutil.rmtree(work / "single", ignore_errors=True)  # cold builds, fresh evals
        shutil.rmtree(work / "ray", ignore_errors=True)
        for name in ("eval-single", "eval-ray"):
            shutil.rmtree(work / name, ignore_errors=True)
        figures = measure(args.bundle.resolve(), work, args.limit)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ray_bench.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures, indent=1))
    print(
        f"build: one process {figures['build_single']['wall_s']} s, Ray "
        f"{figures['build_ray']['wall_s']} s (x{figures['build_ratio']}), identical index: "
        f"{figures['index_identical']}\neval ({args.limit} questions, {SYSTEMS}): one process "
        f"{figures['eval_single']['wall_s']} s, Ray {figures['eval_ray']['wall_s']} s "
        f"(x{figures['eval_ratio']}), identical rankings: {figures['rankings_identical']}"
    )


if __name__ == "__main__":
    main()
