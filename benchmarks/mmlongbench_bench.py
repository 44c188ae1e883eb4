"""MMLongBench-Doc page and region retrieval, with and without OCR, beside the crude anchors.

Usage: python benchmarks/mmlongbench_bench.py RAW [--out runs/mmlongbench_bench]
           [--systems sparse,dense,fif] [--limit N]

RAW is MMLongBench-Doc's layout (`samples.json`, `documents/`, optionally MMDocIR's
`mmdocir_layouts.jsonl`). Each step runs as its own process, timed, with its peak RSS:
1. convert RAW into OUT/bundle (regions, OCR of text-less pages and raster regions; the OCR
   cache in OUT/bundle/ocr-cache makes a rerun skip it) and into OUT/bundle-text (no OCR);
2. `fif build` an index of each;
3. `fif eval` the systems (no LLM: offline backend) on each index, single-document
   (`--single-doc`, the filter inside the Chroma query) and shared-store, always with the
   OCR bundle's questions, so both indices answer the same 152 questions;
4. score each results file: page recall@1/5/10 (share of gold pages, MMDocIR), page
   hit@1/5/10, all-pages@10, MRR@10, recall@5 by evidence source and for questions whose
   evidence pages all lack a text layer, region hit@10 where MMDocIR boxes exist.
Prints the table and writes OUT/mmlongbench_bench.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evals.metrics import breakdown, pool
from evals.page_metrics import long_document_scores, region_hit_at_k

ANCHORS = {
    ("single-document", "BM25"): (0.237, 0.483, 0.648, 0.566, 0.444),
    ("single-document", "MiniLM"): (0.166, 0.471, 0.628, 0.553, 0.380),
    ("shared store", "BM25"): (0.213, 0.357, 0.395, 0.355, 0.344),
    ("shared store", "MiniLM"): (0.128, 0.289, 0.359, 0.309, 0.246),
}
"""The issue's crude anchors (pypdfium2 text, no OCR): page R@1, R@5, R@10, all@10, MRR@10."""
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
    """Convert RAW and build its index (skipped when present); return the steps' costs."""
    name = "bundle" if ocr else "bundle-text"
    bundle, index = out / name, out / f"index-{name}"
    costs: dict[str, Any] = {}
    if not (bundle / "questions.jsonl").is_file():
        command = ["-c", CONVERT, str(raw), str(bundle), "ocr" if ocr else "text"]
        costs["convert"] = measured([sys.executable, *command], out / f"convert-{name}.log")
    if build and not _built(index):
        fif = [sys.executable, "-m", "fif", "build", str(bundle), "--index", str(index)]
        costs["build"] = measured([*fif, "--no-progress"], out / f"build-{name}.log")
    stats = json.loads((bundle / "stats.json").read_text())
    costs["ocr"] = stats.get("ocr", {})
    costs["components"] = stats.get("components")
    return costs


def _built(index: Path) -> bool:
    """Tell whether an index was built to the end (a build writes its manifest early too)."""
    manifest = index / "manifest.json"
    return manifest.is_file() and bool(json.loads(manifest.read_text()).get("built_at"))


def evaluate(out: Path, index: Path, systems: str, single: bool, limit: int | None) -> Path:
    """Run `fif eval` (offline) and return its results file."""
    setting = "single" if single else "shared"
    run_dir = out / f"eval-{index.name}-{setting}"
    command = [
        sys.executable, "-m", "fif", "eval", "--dataset", str(out / "bundle"), "--index",
        str(index), "--out", str(run_dir), "--compare", systems, "--no-progress",
    ]  # fmt: skip
    command += ["--single-doc"] if single else []
    command += ["--limit", str(limit)] if limit else []
    measured(command, out / f"{run_dir.name}.log")
    return run_dir / "results.jsonl"


def score(results: Path, questions: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Return per system the pooled page metrics, R@5 by source and text-less, region hit@10."""
    per_system: dict[str, list[tuple[dict[str, Any], dict[str, float]]]] = {}
    for line in results.read_text().splitlines():
        record = json.loads(line)
        question = questions.get(record["qid"])
        if question is None or "pages" not in record:
            continue
        scores = long_document_scores(record["pages"], set(question["gold_pages"]))
        per_system.setdefault(record["system"], []).append((question, scores))
        if question.get("gold_regions"):
            hit = region_hit_at_k(record.get("regions", []), question["gold_regions"])
            question.setdefault("_region", {})[record["system"]] = hit
    return {system: _summary(system, rows) for system, rows in per_system.items()}


def _summary(system: str, rows: list[tuple[dict[str, Any], dict[str, float]]]) -> dict[str, Any]:
    pooled = pool([scores for _, scores in rows])
    by_source: dict[str, float] = {}
    for source in ("text", "layout", "table", "chart", "figure"):
        hits = [s["PageRecall@5"] for q, s in rows if source in q.get("modalities", [])]
        by_source[source] = round(sum(hits) / len(hits), 3) if hits else float("nan")
    textless = [s for q, s in rows if q.get("textless_evidence")]
    regions = [q["_region"][system] for q, _ in rows if system in q.get("_region", {})]
    split = breakdown(
        [s for _, s in rows], [str(bool(q.get("textless_evidence"))) for q, _ in rows]
    )
    return {
        **{key: round(value, 3) for key, value in pooled.items()},
        "R@5_by_source": by_source,
        "R@5_textless": round(pool(textless).get("PageRecall@5", float("nan")), 3),
        "textless_questions": len(textless),
        "RegionHit@10": round(sum(regions) / len(regions), 3) if regions else float("nan"),
        "region_questions": len(regions),
        "by_textless": {k: round(v["PageRecall@5"], 3) for k, v in split.items()},
    }


def main() -> None:
    """Convert, build, evaluate, score; print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", type=Path)
    parser.add_argument("--out", type=Path, default=Path("runs/mmlongbench_bench"))
    parser.add_argument("--systems", default="sparse,dense,fif")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument(
        "--text-only-eval", action="store_true", help="Also evaluate the text index."
    )
    parser.add_argument(
        "--no-text-only-build", action="store_true", help="Convert without OCR but build no index."
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    costs = {"ocr": convert_and_build(args.raw, args.out, True)}
    costs["text-only"] = convert_and_build(
        args.raw, args.out, False, build=not args.no_text_only_build
    )
    lines = (args.out / "bundle" / "questions.jsonl").read_text().splitlines()
    questions = {q["qid"]: q for q in map(json.loads, lines)}
    indices = ["index-bundle"] + (["index-bundle-text"] if args.text_only_eval else [])
    figures: dict[str, Any] = {"costs": costs, "runs": {}}
    for index in indices:
        for single in (True, False):
            results = evaluate(args.out, args.out / index, args.systems, single, args.limit)
            setting = "single-document" if single else "shared store"
            figures["runs"][f"{index} {setting}"] = score(results, questions)
    (args.out / "mmlongbench_bench.json").write_text(json.dumps(figures, indent=1) + "\n")
    print_table(figures)


def print_table(figures: dict[str, Any]) -> None:
    """Print the page metrics beside the anchors, then the breakdowns and the costs."""
    print(
        "| setting | system | R@1 | R@5 | R@10 | all@10 | MRR@10 | text-less R@5 | region hit@10 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (setting, anchor), values in ANCHORS.items():
        print(
            f"| {setting} | anchor {anchor} | " + " | ".join(f"{v:.3f}" for v in values) + " | | |"
        )
    for run, systems in figures["runs"].items():
        for system, found in systems.items():
            cells = " | ".join(f"{found[c]:.3f}" for c in COLUMNS)
            extra = f"{found['R@5_textless']:.3f} | {found['RegionHit@10']:.3f}"
            print(f"| {run} | {system} | {cells} | {extra} |")
    print("\nR@5 by evidence source (page recall@5):")
    for run, systems in figures["runs"].items():
        for system, found in systems.items():
            print(f"  {run} {system}: {found['R@5_by_source']}")
    print("\ncosts:", json.dumps(figures["costs"], indent=1))


if __name__ == "__main__":
    main()
