"""Score a run's results.jsonl against its questions and write summary tables and plots.

Only the latest line per (qid, system) counts, systems come in the order given (else sorted)
and groups sorted, so a report re-made after a resumed run is identical to one made after an
uninterrupted run. A system is scored on the questions it has a line for; failed lines (an
`error` field) score 0 and are counted in the `errors` column, never dropped silently. Only
lines under a system's current run key count (`evals.freshness`); the provenance section says
how many others were left out and why, and how many current ones come from a dirty tree.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evals.datasets.questions import EvalExample, load_questions
from evals.freshness import Freshness, provenance_markdown, split_by_key
from evals.metrics import (
    breakdown,
    exact_match,
    page_scores,
    pool,
    retrieval_scores,
    token_f1,
)
from evals.regressions import DEFAULT_CANDIDATE, default_pairs, find_regressions, write_regressions
from evals.results_log import RESULTS_FILE, Key, is_complete, parse_lines
from evals.run_config import RUN_KEYS, read_run_config
from evals.runner import QUESTIONS_FILE, TRACES_FILE
from tools.errors import ConfigError

logger = logging.getLogger(__name__)

SUMMARY_MD = "summary.md"
SUMMARY_CSV = "summary.csv"
RETRIEVAL_KEYS = ("R@1", "R@2", "R@5", "R@10", "AllGold@5", "AllGold@10", "MRR@10")
QA_KEYS = ("EM", "F1")
MEAN_COST_KEYS = (
    "llm_ms",
    "vector_ms",
    "embedding_ms",
    "llm_calls",
    "input_tokens",
    "output_tokens",
)
EFFICIENCY_KEYS = ("latency_p50_ms", "latency_p95_ms", *MEAN_COST_KEYS, "usd")
"""Latency percentiles, then per-query means of the cost fields (usd is the run's total)."""


def _hops(example: EvalExample) -> str:
    return str(example.hops) if example.hops is not None else "unknown"


def _modality(example: EvalExample) -> str:
    return "+".join(sorted(set(example.modalities))) or "unknown"


def _answer_source(example: EvalExample) -> str:
    return example.answer_source or "unknown"


BREAKDOWNS: dict[str, Callable[[EvalExample], str]] = {
    "hops": _hops,
    "modality": _modality,
    "answer_source": _answer_source,
}
"""Breakdown dimension → the group label of an example."""


@dataclass(frozen=True)
class SystemReport:
    """One system's pooled scores, efficiency and breakdowns."""

    system: str
    quality: dict[str, float]
    """R@k, AllGold@k, MRR@10 and n; EM, F1 and n_qa when the system answered."""
    efficiency: dict[str, float]
    errors: int
    breakdowns: dict[str, dict[str, dict[str, float]]]
    """Dimension → group → pooled retrieval scores."""


@dataclass(frozen=True)
class Report:
    """Every system's scores, in report order."""

    systems: tuple[SystemReport, ...]
    provenance: tuple[str, ...] = ()
    """Markdown lines: commit, index, each system's key and lines left out (see freshness)."""

    @property
    def has_answers(self) -> bool:
        """Tell whether any system answered (EM/F1 columns are shown)."""
        return any("EM" in s.quality for s in self.systems)

    @property
    def has_pages(self) -> bool:
        """Tell whether the questions had gold pages (page metric columns are shown)."""
        return any("PageR@1" in s.quality for s in self.systems)

    @property
    def spent_money(self) -> bool:
        """Tell whether any system spent dollars (cost plots are drawn)."""
        return any(s.efficiency.get("usd", 0.0) > 0 for s in self.systems)


@dataclass(frozen=True)
class ReportFiles:
    """The files a report wrote, and its Markdown text."""

    summary_md: Path
    summary_csv: Path
    plots: tuple[Path, ...]
    markdown: str
    report: Report
    regressions: tuple[Path, ...] = ()
    """OUT/regressions.json and .md, when the candidate ran beside another system."""


def percentile(values: Sequence[float], q: float) -> float:
    """Return the q-th percentile (0-100) by linear interpolation; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def efficiency(lines: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Return latency p50/p95 and mean costs over completed result lines."""
    done = [line for line in lines if is_complete(line)]
    latencies = [float(line.get("latency_ms", 0.0)) for line in done]
    costs = [line.get("cost") or {} for line in done]
    out = {"latency_p50_ms": percentile(latencies, 50), "latency_p95_ms": percentile(latencies, 95)}
    for key in MEAN_COST_KEYS:
        out[key] = sum(float(c.get(key, 0.0)) for c in costs) / len(costs) if costs else 0.0
    out["usd"] = sum(float(c.get("usd", 0.0)) for c in costs)
    return out


def score_system(
    name: str, lines: Mapping[str, Mapping[str, Any]], examples: Sequence[EvalExample]
) -> SystemReport:
    """Score one system's latest lines (by qid) against the examples it has lines for."""
    scored = [(ex, lines[ex.qid]) for ex in examples if ex.qid in lines]
    per_example = [retrieval_scores(line.get("ranking") or [], ex.gold) for ex, line in scored]
    quality = pool(per_example)
    if scored and all(ex.gold_pages for ex, _ in scored):
        pages = [
            page_scores(line.get("pages") or [], frozenset(ex.gold_pages)) for ex, line in scored
        ]
        quality.update({key: value for key, value in pool(pages).items() if key != "n"})
    if any(line.get("answer") is not None for _, line in scored):
        qa = [
            {
                "EM": exact_match(line.get("answer") or "", ex.answers),
                "F1": token_f1(line.get("answer") or "", ex.answers),
            }
            for ex, line in scored
            if ex.answers
        ]
        pooled = pool(qa)
        quality.update({key: pooled.get(key, 0.0) for key in QA_KEYS}, n_qa=pooled["n"])
    groups = {
        dimension: breakdown(per_example, [label(ex) for ex, _ in scored])
        for dimension, label in BREAKDOWNS.items()
    }
    errors = len([line for _, line in scored if not is_complete(line)])
    return SystemReport(name, quality, efficiency([line for _, line in scored]), errors, groups)


def build_report(
    results: Mapping[Key, Mapping[str, Any]],
    examples: Sequence[EvalExample],
    systems: Sequence[str] | None = None,
) -> Report:
    """Score every system found in the results; `systems` fixes the order of those it names."""
    known = {ex.qid for ex in examples}
    stray = sorted({qid for qid, _ in results if qid not in known})
    if stray:
        logger.warning("%d result qid(s) not in the questions, ignored: %s", len(stray), stray[:5])
    by_system: dict[str, dict[str, Mapping[str, Any]]] = {}
    for (qid, system), line in sorted(results.items()):
        if qid in known:
            by_system.setdefault(system, {})[qid] = line
    order = [name for name in dict.fromkeys(systems or ()) if name in by_system]
    order += sorted(set(by_system) - set(order))
    for name in systems or ():
        if name not in by_system:
            logger.warning("system %r has no results yet; it is left out of the report", name)
    reports = [score_system(name, by_system[name], examples) for name in order]
    for rep in reports:
        if rep.quality["n"] < len(examples):
            logger.warning(
                "%s: %d of %d questions have results",
                rep.system,
                int(rep.quality["n"]),
                len(examples),
            )
    return Report(tuple(reports))


@dataclass(frozen=True)
class RunData:
    """An out dir read back: its run config, its questions and its current lines."""

    config: dict[str, Any]
    examples: tuple[EvalExample, ...]
    freshness: Freshness


def read_run(out_dir: Path, questions_path: Path | None = None) -> RunData:
    """Read OUT/run_config.json, the questions (from it unless given) and OUT/results.jsonl.

    Raises:
        ConfigError: If the questions file cannot be located.
    """
    config = read_run_config(out_dir)
    if questions_path is None:
        if "dataset" not in config:
            raise ConfigError(f"{out_dir}: no run_config.json naming the dataset; pass questions")
        questions_path = Path(config["dataset"]) / QUESTIONS_FILE
    examples = load_questions(questions_path).examples
    return RunData(config, examples, _current(out_dir / RESULTS_FILE, config))


def _current(path: Path, config: Mapping[str, Any]) -> Freshness:
    """Split a results (or traces) file into current lines and lines under another key."""
    records = parse_lines(path.read_bytes(), str(path))[0] if path.is_file() else []
    return split_by_key(records, config.get(RUN_KEYS, {}))


def load_report(
    out_dir: Path, questions_path: Path | None = None, systems: Sequence[str] | None = None
) -> Report:
    """Read an out dir (see `read_run`) and score its current lines."""
    return _scored(read_run(out_dir, questions_path), systems)


def _scored(data: RunData, systems: Sequence[str] | None) -> Report:
    report = build_report(
        data.freshness.current, data.examples, systems or data.config.get("systems")
    )
    names = [rep.system for rep in report.systems]
    return replace(
        report, provenance=tuple(provenance_markdown(data.config, data.freshness, names))
    )


def write_report(
    out_dir: Path,
    questions_path: Path | None = None,
    systems: Sequence[str] | None = None,
    *,
    plots: bool = True,
    candidate: str = DEFAULT_CANDIDATE,
) -> ReportFiles:
    """Write OUT/summary.md, OUT/summary.csv, the regressions and (unless `plots`) the plots.

    The regressions of `candidate` against every other system end summary.md and go to
    OUT/regressions.json and .md (see `evals.regressions`).
    """
    from evals.tables import to_markdown, write_csv

    data = read_run(out_dir, questions_path)
    report = _scored(data, systems)
    regression_files, section = _regressions(out_dir, data, report, candidate)
    markdown = to_markdown(report) + (f"\n{section}" if section else "")
    md_path = out_dir / SUMMARY_MD
    md_path.write_text(markdown, encoding="utf-8")
    csv_path = write_csv(report, out_dir / SUMMARY_CSV)
    images: list[Path] = []
    if plots:
        from evals.plots import write_plots  # matplotlib loads only when plots are drawn

        images = write_plots(report, out_dir)
    logger.info("report written to %s", out_dir)
    return ReportFiles(md_path, csv_path, tuple(images), markdown, report, regression_files)


def _regressions(
    out_dir: Path, data: RunData, report: Report, candidate: str
) -> tuple[tuple[Path, ...], str]:
    """Write the candidate's regressions against every other system; return files and section."""
    pairs = default_pairs([rep.system for rep in report.systems], candidate)
    if not pairs:
        return (), ""
    traces = _current(out_dir / TRACES_FILE, data.config).current
    found = [
        regression
        for pair in pairs
        for regression in find_regressions(data.freshness.current, data.examples, pair, traces)
    ]
    json_path, md_path, markdown = write_regressions(out_dir, pairs, found)
    return (json_path, md_path), markdown
