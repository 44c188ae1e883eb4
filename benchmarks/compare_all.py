"""Run every system on every dev bundle and write one table and one quality-vs-cost plot.

Usage:
  python benchmarks/compare_all.py BUNDLE [BUNDLE ...] [--index-root .fif/bench]
      [--out runs/compare] [--systems all] [--workers 1]

For each bundle (FinanceBench's upstream layout is converted first, and scored by pages):
build (or bring up to date) its index, run `fif eval --compare SYSTEMS` offline, then
write OUT/comparison.md (one row per bundle and system: R@1, R@10, all-gold@10, MRR@10,
p50 latency, LLM calls, p50 as a multiple of dense's) and OUT/comparison.png (all-gold@10
against p50 latency and LLM calls, one point per system per bundle).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from corpus_builder.build import BuildOptions, build
from evals.cli import system_names
from evals.comparison import comparison_plot, comparison_table
from evals.report import Report, write_report
from evals.runner import run


def as_bundle(path: Path, converted_root: Path) -> Path:
    """Return a bundle folder: FinanceBench's upstream layout is converted first (once)."""
    if not (path / "financebench_open_source.jsonl").is_file():
        return path
    from evals.datasets import ConversionJob
    from evals.datasets.financebench import convert

    out = converted_root / path.name
    if not (out / "questions.jsonl").is_file():
        convert(ConversionJob(path, out))
    return out


def main() -> None:
    """Compare the systems on every bundle given."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--systems", default="all", help="comma-separated, or all")
    parser.add_argument("--index-root", type=Path, default=Path(".fif/bench"))
    parser.add_argument("--out", type=Path, default=Path("runs/compare"))
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    systems = system_names(None, args.systems)
    reports: dict[str, Report] = {}
    for given in args.bundles:
        bundle = as_bundle(given, args.out / "bundles")
        index_dir = args.index_root / bundle.name
        build(bundle, index_dir, BuildOptions(show_progress=True))
        out_dir = args.out / bundle.name
        run(systems, bundle, index_dir, out_dir, workers=args.workers, progress=True)
        reports[bundle.name] = write_report(out_dir).report
    args.out.mkdir(parents=True, exist_ok=True)
    table = comparison_table(reports)
    (args.out / "comparison.md").write_text(table, encoding="utf-8")
    plot = comparison_plot(reports, args.out / "comparison.png")
    print(f"{table}\nwrote {args.out / 'comparison.md'}, {plot}")


if __name__ == "__main__":
    main()
