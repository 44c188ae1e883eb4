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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from evals.answer_scores import ANSWER_KEYS, QA_KEYS, pooled_answers
from evals.datasets.questions import EvalExample, load_questions
from evals.efficiency import EFFICIENCY_KEYS, efficiency, percentile
from evals.freshness import Freshness, provenance_markdown, split_by_key
from evals.judge_run import read_judgments
from evals.metrics import breakdown, page_scores, pool, retrieval_scores
from evals.regressions import DEFAULT_CANDIDATE, default_pairs, find_regressions, write_regressions
from evals.report_model import RETRIEVAL_KEYS, Report, SystemReport
from evals.results_log import RESULTS_FILE, Key, is_complete, parse_lines
from evals.run_config import RUN_KEYS, read_run_config
from evals.runner import QUESTIONS_FILE, TRACES_FILE
from evals.tables import to_markdown, write_csv
from tools.errors import ConfigError

logger = logging.getLogger(__name__)

SUMMARY_MD = "summary.md"
SUMMARY_CSV = "summary.csv"
__all__ = [
    "ANSWER_KEYS",
    "EFFICIENCY_KEYS",
    "QA_KEYS",
    "RETRIEVAL_KEYS",
    "Report",
    "SystemReport",
    "percentile",
]


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
class ReportFiles:
    """The files a report wrote, and its Markdown text."""

    summary_md: Path
    summary_csv: Path
    plots: tuple[Path, ...]
    markdown: str
    report: Report
    regressions: tuple[Path, ...] = ()
    """OUT/regressions.json and .md, when the candidate ran beside another system."""


def score_system(
    name: str,
    lines: Mapping[str, Mapping[str, Any]],
    examples: Sequence[EvalExample],
    judgments: Mapping[str, Mapping[str, Any]] | None = None,
) -> SystemReport:
    """Score one system's latest lines (by qid) against the examples it has lines for.

    `judgments` (by qid) are the judge's verdicts, used for Correct where they apply.
    """
    scored = [(ex, lines[ex.qid]) for ex in examples if ex.qid in lines]
    per_example = [retrieval_scores(line.get("ranking") or [], ex.gold) for ex, line in scored]
    quality = pool(per_example)
    if scored and all(ex.gold_pages for ex, _ in scored):
        pages = [
            page_scores(line.get("pages") or [], frozenset(ex.gold_pages)) for ex, line in scored
        ]
        quality.update({key: value for key, value in pool(pages).items() if key != "n"})
    methods: dict[str, int] = {}
    if any(line.get("answer") is not None for _, line in scored):
        answers, methods = pooled_answers(scored, judgments)
        quality.update(answers)
    groups = {
        dimension: breakdown(per_example, [label(ex) for ex, _ in scored])
        for dimension, label in BREAKDOWNS.items()
    }
    errors = len([line for _, line in scored if not is_complete(line)])
    cost = efficiency([line for _, line in scored])
    return SystemReport(name, quality, cost, errors, groups, methods)


def build_report(
    results: Mapping[Key, Mapping[str, Any]],
    examples: Sequence[EvalExample],
    systems: Sequence[str] | None = None,
    judgments: Mapping[Key, Mapping[str, Any]] | None = None,
    expected: Collection[str] | None = None,
) -> Report:
    """Score every system found in the results; `systems` fixes the order of those it names.

    `judgments` are the judge's verdict lines; without them Correct is matched offline.
    `expected` are the qids every system should have a result for (a `--limit N` run asks
    for the first N; default: every example); a system with fewer is warned about.
    """
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
    verdicts: dict[str, dict[str, Mapping[str, Any]]] = {}
    for (qid, system), line in (judgments or {}).items():
        verdicts.setdefault(system, {})[qid] = line
    reports = [score_system(name, by_system[name], examples, verdicts.get(name)) for name in order]
    wanted = known if expected is None else set(expected)
    for name in order:
        have = len(wanted & by_system[name].keys())
        if have < len(wanted):
            logger.warning("%s: %d of %d questions have results", name, have, len(wanted))
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
    out_dir: Path,
    questions_path: Path | None = None,
    systems: Sequence[str] | None = None,
    judge: bool = False,
) -> Report:
    """Read an out dir (see `read_run`) and score its current lines (with the judge's verdicts)."""
    return _scored(read_run(out_dir, questions_path), systems, out_dir if judge else None)


def _scored(
    data: RunData,
    systems: Sequence[str] | None,
    judged: Path | None,
    expected: Collection[str] | None = None,
) -> Report:
    """Score a run; `judged` is the out dir whose judgments.jsonl decides Correct, if any."""
    verdicts = read_judgments(judged) if judged else None
    names = systems or data.config.get("systems")
    report = build_report(data.freshness.current, data.examples, names, verdicts, expected)
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
    judge: bool = False,
    expected: Collection[str] | None = None,
) -> ReportFiles:
    """Write OUT/summary.md, OUT/summary.csv, the regressions and (unless `plots`) the plots.

    The regressions of `candidate` against every other system end summary.md and go to
    OUT/regressions.json and .md (see `evals.regressions`). With `judge`, the judge's
    verdicts in OUT/judgments.jsonl decide Correct where they apply. `expected`: the qids
    the run asked for (see `build_report`).
    """
    data = read_run(out_dir, questions_path)
    report = _scored(data, systems, out_dir if judge else None, expected)
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
