"""Compare retrieval systems on bundles through the eval harness, in one run per bundle.

Usage:
  python benchmarks/eval_bench.py BUNDLE [BUNDLE ...] [--systems dense,lilac,fif]
      [--index-root .fif/bench] [--out runs/bench] [--kill-resume] [--latency N]

For each bundle: build (or bring up to date) its index with the default embedder, run
`fif eval --compare SYSTEMS` (offline backends), and print the summary table (R@1/2/5/10,
all-gold@5/10, MRR@10, latency p50/p95, time split). With --kill-resume it also runs the
comparison in a subprocess, kills it with SIGKILL halfway, resumes it, and checks that
the quality columns and rankings equal those of the uninterrupted run. With --latency N it
times `fif ask` on the first N questions twice, each alike (offline, SQLite checkpoints):
cold, a fresh `fif ask` process per question (start-up, model load and graph compile
included), and warm, `run_system("fif", ...)` in this process after a warm-up question (the query
embedding cache emptied before each, so each pays for its own embedding).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from corpus_builder.build import BuildOptions, build
from evals.report import Report, write_report
from evals.results_log import read_latest
from evals.runner import run

ABLATIONS = (
    "fif-no-backtracking,fif-no-llm-traversal,fif-no-global-hop,"
    "fif-fixed-granularity,fif-no-planner"
)


def main() -> None:
    """Run the comparison on every bundle given."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--systems", default="dense,lilac,fif")
    parser.add_argument("--ablations", action="store_true", help=f"add {ABLATIONS}")
    parser.add_argument("--index-root", type=Path, default=Path(".fif/bench"))
    parser.add_argument("--out", type=Path, default=Path("runs/bench"))
    parser.add_argument("--kill-resume", action="store_true")
    parser.add_argument("--latency", type=int, default=0, help="time fif ask on N questions")
    args = parser.parse_args()
    systems = args.systems.split(",") + (ABLATIONS.split(",") if args.ablations else [])
    for bundle in args.bundles:
        index_dir = args.index_root / bundle.name
        build(bundle, index_dir, BuildOptions(show_progress=True))
        out_dir = args.out / f"{bundle.name}-{'-'.join(args.systems.split(','))}"
        run(systems, bundle, index_dir, out_dir, progress=True)
        files = write_report(out_dir)
        print(f"\n## {bundle.name}\n\n{files.markdown}\nfiles: {out_dir}")
        print(json.dumps(against_dense(files.report), indent=1))
        if args.kill_resume:
            print(kill_and_resume(bundle, index_dir, systems, out_dir, args.out))
        if args.latency:
            print(json.dumps(ask_latency(bundle, index_dir, args.latency), indent=1))


def kill_and_resume(
    bundle: Path, index_dir: Path, systems: list[str], reference: Path, root: Path
) -> str:
    """Kill a run halfway with SIGKILL, resume it, and compare with the reference run."""
    out_dir = root / f"{bundle.name}-killed"
    if out_dir.exists():
        subprocess.run(["rm", "-rf", str(out_dir)], check=True)
    code = (
        f"from pathlib import Path; from evals.runner import run; "
        f"run({systems!r}, Path({str(bundle)!r}), Path({str(index_dir)!r}), "
        f"Path({str(out_dir)!r}), progress=False)"
    )
    total = sum(1 for _ in (bundle / "questions.jsonl").open()) * len(systems)
    process = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    results = out_dir / "results.jsonl"
    while process.poll() is None:
        done = sum(1 for _ in results.open()) if results.exists() else 0
        if done >= total // 2:
            os.killpg(process.pid, signal.SIGKILL)
            break
        time.sleep(0.2)
    process.wait()
    killed_at = sum(1 for _ in results.open())
    summary = run(systems, bundle, index_dir, out_dir, progress=False)
    rankings = {key: r["ranking"] for key, r in read_latest(results).items()}
    reference_rankings = {
        key: r["ranking"] for key, r in read_latest(reference / "results.jsonl").items()
    }
    resumed = write_report(out_dir, plots=False).report
    original = write_report(reference, plots=False).report
    same_quality = _quality(resumed) == _quality(original)
    return json.dumps(
        {
            "killed_after_lines": killed_at,
            "total_lines": total,
            "resumed_computed": summary.computed,
            "resumed_skipped": summary.skipped,
            "identical_rankings": rankings == reference_rankings,
            "identical_quality_table": same_quality,
        },
        indent=1,
    )


def ask_latency(bundle: Path, index_dir: Path, n: int) -> dict[str, dict[str, float]]:
    """Time FiF on the first n questions: a fresh `fif ask` process each, then in-process."""
    from graph_agent.systems import run_system
    from state.settings import RunSettings
    from tools.corpus_index import open_index

    lines = (bundle / "questions.jsonl").read_text(encoding="utf-8").splitlines()[:n]
    questions = [json.loads(line)["question"] for line in lines]
    cold = [_timed(partial(_fif_ask_process, q, index_dir)) for q in questions]
    context = RunSettings(index_dir=str(index_dir))
    forget = open_index(str(index_dir)).forget_queries
    run_system("fif", questions[0], context)  # warm-up: models, index, compiled graph

    def warm_one(question: str) -> None:
        forget()
        run_system("fif", question, context)

    warm = [_timed(partial(warm_one, q)) for q in questions]
    return {"cold_process_ms": _percentiles(cold), "warm_in_process_ms": _percentiles(warm)}


def _fif_ask_process(question: str, index_dir: Path) -> None:
    """Run `fif ask` (offline) in a fresh process, as a user would."""
    args = ["ask", question, "--index", str(index_dir), "--json"]
    command = [sys.executable, "-c", "from fif.cli import main; main()", *args]
    subprocess.run(command, check=True, capture_output=True)


def _timed(call: Callable[[], None]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000.0


def _percentiles(times: list[float]) -> dict[str, float]:
    return {
        "n": len(times),
        "p50": round(float(np.percentile(times, 50)), 1),
        "p95": round(float(np.percentile(times, 95, method="lower")), 1),
    }


def against_dense(report: Report) -> dict[str, dict[str, float]]:
    """Return each system's latency p50/p95 and quality as differences or ratios to dense."""
    by_name = {system.system: system for system in report.systems}
    dense = by_name.get("dense")
    if dense is None:
        return {}
    result = {}
    for name, system in by_name.items():
        result[name] = {
            "p50_ratio": round(
                system.efficiency["latency_p50_ms"] / dense.efficiency["latency_p50_ms"], 2
            ),
            "p95_ratio": round(
                system.efficiency["latency_p95_ms"] / dense.efficiency["latency_p95_ms"], 2
            ),
            **{
                f"{key}_minus_dense": round(system.quality[key] - dense.quality[key], 3)
                for key in ("R@10", "AllGold@10", "MRR@10")
            },
        }
    return result


def _quality(report: Report) -> list[tuple[str, dict[str, float]]]:
    return [(system.system, dict(system.quality)) for system in report.systems]


if __name__ == "__main__":
    main()
