"""MMLongBench-Doc page and region retrieval, with and without OCR, beside the crude anchors.

Usage: python benchmarks/mmlongbench_bench.py RAW [--out runs/mmlongbench_bench]
           [--systems sparse,dense,fif,...] [--limit N] [--text-only-eval] [--score-only]

RAW is MMLongBench-Doc's layout (`samples.json`, `documents/`, optionally MMDocIR's
`mmdocir_layouts.jsonl`). Each step runs as its own process, timed, with its peak RSS:
1. convert RAW into OUT/bundle (regions, OCR of text-less pages and raster regions; the OCR
   cache in OUT/bundle/ocr-cache makes a rerun skip it) and into OUT/bundle-text (no OCR);
2. `fif build` an index of each (the build's stage timings come from its manifest);
3. `fif eval` the systems (every system by default; no LLM: offline backend) on each index,
   single-document (`--single-doc`, the filter inside the Chroma query) and shared-store,
   always with the OCR bundle's questions;
4. score each results file over every question of the OCR bundle (evals.page_report: a
   failed or skipped question scores as an empty ranking and is counted): page
   recall@1/5/10 (share of gold pages, MMDocIR), page hit@1/5/10, all-pages@10, MRR@10,
   recall@5 by evidence source and for questions whose evidence pages all lack a text
   layer, region hit@10 where MMDocIR boxes exist, and single-document scope leaks.
Prints the table and writes OUT/mmlongbench_bench.json; `--score-only` rescores the
results already in OUT.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evals.page_report import latest_lines, system_figures

ANCHORS = {
    ("single-document", "BM25"): (0.237, 0.483, 0.648, 0.566, 0.444),
    ("single-document", "MiniLM"): (0.166, 0.471, 0.628, 0.553, 0.380),
    ("shared store", "BM25"): (0.213, 0.357, 0.395, 0.355, 0.344),
    ("shared store", "MiniLM"): (0.128, 0.289, 0.359, 0.309, 0.246),
}
"""The issue's crude anchors (pypdfium2 text, no OCR): page R@1, R@5, R@10, all@10, MRR@10."""
SYSTEMS = "sparse,dense,fif,lilac,ircot,mmapg,reagent,extraction"
"""Every system `fif eval` runs offline, the single-shot baselines first."""
COLUMNS = ("PageRecall@1", "PageRecall@5", "PageRecall@10", "AllPages@10", "PageMRR@10")
MEASURE = (
    "import resource, subprocess, sys; code = subprocess.call(sys.argv[1:]); "
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss; "
    "sys.stderr.write(f'PEAK_RSS_KB {peak}\\n'); sys.exit(code)"
)
"""Runs a command and reports the peak RSS of its largest process (OCR workers included)."""
CONVERT = (
    "import sys; from pathlib import Path; from evals.datasets import ConversionJob; "
    "from evals.datasets.mmlongbench import convert; "
    "convert(ConversionJob(Path(sys.argv[1]), Path(sys.argv[2])), ocr=sys.argv[3] == 'ocr')"
)


def measured(command: list[str], log: Path) -> dict[str, float]:
    """Run a command, logging to a file; return its wall seconds and peak RSS in MB."""
    started = time.perf_counter()
    with log.open("w") as handle:
        done = subprocess.run(
            [sys.executable, "-c", MEASURE, *command], stdout=handle, stderr=subprocess.PIPE,
            text=True, check=False,
        )  # fmt: skip
        handle.write(done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}; see {log}")
    peak = next(
        int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_RSS_KB")
    )
    return {"seconds": round(time.perf_counter() - started, 1), "peak_rss_mb": round(peak / 1024)}


def convert_and_build(raw: Path, out: Path, ocr: bool, build: bool = True) -> dict[str, Any]:
    """Convert RAW and build its index (skipped when present); return the steps' costs.

    Measured costs are kept in OUT/costs-NAME.json, so a rerun that skips a step keeps them.
    """
    name = "bundle" if ocr else "bundle-text"
    bundle, index, kept = out / name, out / f"index-{name}", out / f"costs-{name}.json"
    costs: dict[str, Any] = json.loads(kept.read_text()) if kept.is_file() else {}
    if not (bundle / "questions.jsonl").is_file():
        command = ["-c", CONVERT, str(raw), str(bundle), "ocr" if ocr else "text"]
        costs["convert"] = measured([sys.executable, *command], out / f"convert-{name}.log")
    if build and not _built(index):
        fif = [sys.executable, "-m", "fif", "build", str(bundle), "--index", str(index)]
        costs["build"] = measured([*fif, "--no-progress"], out / f"build-{name}.log")
    kept.write_text(json.dumps(costs) + "\n")
    stats = json.loads((bundle / "stats.json").read_text())
    costs.update(ocr=stats.get("ocr", {}), components=stats.get("components"))
    if _built(index):
        manifest = json.loads((index / "manifest.json").read_text())
        costs.update(timings=manifest.get("timings"), counts=manifest.get("counts"))
    return costs


def _built(index: Path) -> bool:
    """Tell whether an index was built to the end (a build writes its manifest early too)."""
    manifest = index / "manifest.json"
    return manifest.is_file() and bool(json.loads(manifest.read_text()).get("built_at"))


def evaluate(out: Path, index: Path, systems: str, single: bool, questions: Path) -> Path:
    """Run `fif eval` (offline) on the folder holding `questions.jsonl`; return its results."""
    setting = "single" if single else "shared"
    run_dir = out / f"eval-{index.name}-{setting}"
    command = [
        sys.executable, "-m", "fif", "eval", "--dataset", str(questions), "--index",
        str(index), "--out", str(run_dir), "--compare", systems, "--no-progress",
    ]  # fmt: skip
    command += ["--single-doc"] if single else []
    measured(command, out / f"{run_dir.name}.log")
    return run_dir / "results.jsonl"


def asked(out: Path, limit: int | None) -> Path:
    """Return the folder of the questions every index is asked: the OCR bundle's first N.

    Both indices get the same questions file (`fif eval --limit` would take the first N
    questions each index can answer, which differ when the text-only index lacks documents).
    """
    if limit is None:
        return out / "bundle"
    folder = out / f"questions-first-{limit}"
    folder.mkdir(exist_ok=True)
    lines = (out / "bundle" / "questions.jsonl").read_text().splitlines(keepends=True)
    (folder / "questions.jsonl").write_text("".join(lines[:limit]))
    return folder


def score(results: Path, questions: list[dict[str, Any]], systems: str, single: bool) -> Any:
    """Return per system the page metrics over every question (evals.page_report)."""
    lines = latest_lines(json.loads(line) for line in results.read_text().splitlines())
    return {
        name: system_figures(lines, questions, name, single)
        for name in filter(None, map(str.strip, systems.split(",")))
    }


def main() -> None:
    """Convert, build, evaluate, score; print and write the figures."""
    args = arguments()
    args.out.mkdir(parents=True, exist_ok=True)
    costs = {"ocr": convert_and_build(args.raw, args.out, True)}
    costs["text-only"] = convert_and_build(
        args.raw, args.out, False, build=not args.no_text_only_build
    )
    folder = asked(args.out, args.limit)
    questions = [json.loads(line) for line in (folder / "questions.jsonl").read_text().splitlines()]
    indices = ["index-bundle"] + (["index-bundle-text"] if args.text_only_eval else [])
    figures: dict[str, Any] = {"costs": costs, "runs": {}}
    for index in indices:
        for single in (True, False):
            setting = "single" if single else "shared"
            results = args.out / f"eval-{index}-{setting}" / "results.jsonl"
            if not args.score_only:
                results = evaluate(args.out, args.out / index, args.systems, single, folder)
            run = f"{index} {'single-document' if single else 'shared store'}"
            figures["runs"][run] = score(results, questions, args.systems, single)
    (args.out / "mmlongbench_bench.json").write_text(json.dumps(figures, indent=1) + "\n")
    print_table(figures)


def arguments() -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", type=Path)
    parser.add_argument("--out", type=Path, default=Path("runs/mmlongbench_bench"))
    parser.add_argument("--systems", default=SYSTEMS)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--text-only-eval", action="store_true", help="Also evaluate the text index."
    )
    parser.add_argument(
        "--no-text-only-build", action="store_true", help="Convert without OCR but build no index."
    )
    parser.add_argument(
        "--score-only", action="store_true", help="Score the eval folders' results; run nothing."
    )
    return parser.parse_args()


def print_table(figures: dict[str, Any]) -> None:
    """Print the page metrics beside the anchors, then the breakdowns and the costs."""
    print("| setting | system | R@1 | R@5 | R@10 | all@10 | MRR@10 | text-less R@5 | region hit@10 "
          "| errors | not run | outside scope |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (setting, anchor), values in ANCHORS.items():
        cells = " | ".join(f"{v:.3f}" for v in values)
        print(f"| {setting} | anchor {anchor} | {cells} | | | | | |")
    for run, systems in figures["runs"].items():
        for system, found in systems.items():
            cells = " | ".join(f"{found[c]:.3f}" for c in COLUMNS)
            extra = f"{found['R@5_textless']:.3f} | {found['RegionHit@10']:.3f}"
            counts = f"{found['errors']} | {found['not_run']} | {found['outside_scope']}"
            print(f"| {run} | {system} | {cells} | {extra} | {counts} |")
    print("\nR@5 by evidence source (page recall@5):")
    for run, systems in figures["runs"].items():
        for system, found in systems.items():
            print(f"  {run} {system}: {found['R@5_by_source']}")
    print("\ncosts:", json.dumps(figures["costs"], indent=1))


if __name__ == "__main__":
    main()
