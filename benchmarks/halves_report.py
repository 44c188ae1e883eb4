"""Report eval runs by half (tuning / reporting) with 95% bootstrap intervals.

    python benchmarks/halves_report.py BUNDLE RUN_DIR [BUNDLE RUN_DIR ...] [--baseline dense]

Each RUN_DIR is the --out of a `fif eval` of that bundle. Prints, per bundle and half, every
system's R@10, all-gold@10 and MRR@10 with intervals, and each system's paired difference to
the baseline (positive: the system is ahead). Choose constants on `tune`; quote `report`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from evals.datasets.questions import load_questions
from evals.halves import HALVES, bootstrap, half_of, paired_difference
from evals.metrics import exact_match, retrieval_scores, token_f1
from evals.results_log import read_latest

METRICS = ("R@10", "AllGold@10", "MRR@10")
QA_METRICS = ("EM", "F1")
"""Added when every result line of the run carries an answer (`fif eval --answer`)."""


def per_question(bundle: Path, run_dir: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Return {system: {qid: metrics}} for the questions every system of the run answered."""
    examples = {ex.qid: ex for ex in load_questions(bundle / "questions.jsonl").examples}
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for (qid, system), line in read_latest(run_dir / "results.jsonl").items():
        if qid in examples and "ranking" in line and not line.get("error"):
            example = examples[qid]
            metrics = retrieval_scores(line["ranking"], example.gold)
            if "answer" in line and example.answers:
                answer = line["answer"] or ""
                metrics["EM"] = exact_match(answer, example.answers)
                metrics["F1"] = token_f1(answer, example.answers)
            scores.setdefault(system, {})[qid] = metrics
    shared = set.intersection(*(set(by_qid) for by_qid in scores.values())) if scores else set()
    return {system: {q: by_qid[q] for q in shared} for system, by_qid in scores.items()}


def report(bundle: Path, run_dir: Path, baseline: str) -> None:
    """Print the halves table of one run."""
    scores = per_question(bundle, run_dir)
    rows = [row for by_qid in scores.values() for row in by_qid.values()]
    answered = bool(rows) and all("EM" in row for row in rows)
    metrics = METRICS + QA_METRICS if answered else METRICS
    print(f"\n## {bundle.name} ({run_dir})\n")
    print("| half | system | n | " + " | ".join(metrics) + " | " + " | ".join(
        f"Δ{m} vs {baseline}" for m in metrics) + " |")  # fmt: skip
    print("|---" * (3 + 2 * len(metrics)) + "|")
    for half in HALVES:
        for system, by_qid in scores.items():
            qids = sorted(q for q in by_qid if half_of(q) == half)
            if not qids:
                continue
            cells = [str(bootstrap([by_qid[q][m] for q in qids])) for m in metrics]
            if baseline in scores and system != baseline:
                base = scores[baseline]
                for m in metrics:
                    mine, theirs = [by_qid[q][m] for q in qids], [base[q][m] for q in qids]
                    cells.append(f"{paired_difference(mine, theirs):+}")
            else:
                cells += ["—"] * len(metrics)
            print(f"| {half} | {system} | {len(qids)} | " + " | ".join(cells) + " |")


def main() -> None:
    """Parse BUNDLE RUN_DIR pairs and print one table per run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="BUNDLE RUN_DIR, repeated")
    parser.add_argument("--baseline", default="dense")
    args = parser.parse_args()
    if len(args.pairs) % 2:
        parser.error("give BUNDLE RUN_DIR pairs")
    for bundle, run_dir in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        report(bundle, run_dir, args.baseline)


if __name__ == "__main__":
    main()
