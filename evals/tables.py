"""Render a Report as Markdown tables (summary.md) and as one long CSV (summary.csv)."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

from evals.answer_scores import ANSWER_KEYS, QA_KEYS
from evals.efficiency import EFFICIENCY_KEYS
from evals.metrics import PAGE_KEYS
from evals.report_model import RETRIEVAL_KEYS, Report

_COUNT_KEYS = {"n", "n_qa", "errors"}
_DECIMALS = {"usd": 4, "llm_calls": 2}
CSV_COLUMNS = (
    "section",
    "group",
    "system",
    *RETRIEVAL_KEYS,
    *PAGE_KEYS,
    "n",
    *QA_KEYS,
    *ANSWER_KEYS,
    "n_qa",
    "errors",
    *EFFICIENCY_KEYS,
)


def fmt(key: str, value: float | None) -> str:
    """Format one cell: counts as integers, scores with 3 decimals, times with 1."""
    if value is None:
        return "–"
    if key in _COUNT_KEYS:
        return str(int(value))
    if key in (*RETRIEVAL_KEYS, *QA_KEYS, *ANSWER_KEYS, *PAGE_KEYS):
        return f"{value:.3f}"
    return f"{value:.{_DECIMALS.get(key, 1)}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def quality_table(report: Report) -> list[str]:
    """Return the Markdown lines of the retrieval (and QA) table, one row per system."""
    keys = [*RETRIEVAL_KEYS, *(PAGE_KEYS if report.has_pages else ()), "n"]
    keys += ([*QA_KEYS, *ANSWER_KEYS, "n_qa"] if report.has_answers else []) + ["errors"]
    rows = []
    for rep in report.systems:
        values = {**rep.quality, "errors": float(rep.errors)}
        rows.append([rep.system, *(fmt(key, values.get(key)) for key in keys)])
    return _table(["system", *keys], rows)


METHOD_NOTES = {
    "number": "numbers within 1%",
    "polarity": "yes/no",
    "text": "short text",
    "undecided": "prose, undecided offline (not correct)",
    "unanswered": "no answer",
    "judge": "LLM judge",
    "judge-fallback": "judge failed, numbers",
}
"""How each rule that decides Correct is named in the summary (see evals.answer_match)."""


def answer_notes(report: Report) -> list[str]:
    """Return one line per answering system: how many answers each rule decided."""
    lines = []
    for rep in report.systems:
        if rep.answer_methods:
            parts = [f"{METHOD_NOTES.get(m, m)} {n}" for m, n in rep.answer_methods.items()]
            lines.append(f"- {rep.system}: " + ", ".join(parts))
    return lines


def efficiency_table(report: Report) -> list[str]:
    """Return the Markdown lines of the efficiency table (per query, $ in total)."""
    rows = [
        [rep.system, *(fmt(key, rep.efficiency.get(key)) for key in EFFICIENCY_KEYS)]
        for rep in report.systems
    ]
    return _table(["system", *EFFICIENCY_KEYS], rows)


def breakdown_table(report: Report, dimension: str) -> list[str]:
    """Return the Markdown lines of one breakdown: a row per (group, system)."""
    keys = [*RETRIEVAL_KEYS, "n"]
    groups = sorted({g for rep in report.systems for g in rep.breakdowns.get(dimension, {})})
    rows = []
    for group in groups:
        for rep in report.systems:
            pooled = rep.breakdowns.get(dimension, {}).get(group)
            if pooled is not None:
                rows.append([group, rep.system, *(fmt(key, pooled.get(key)) for key in keys)])
    return _table([dimension, "system", *keys], rows)


def to_markdown(report: Report) -> str:
    """Return the whole summary.md text."""
    lines = ["# Evaluation summary", "", "## Retrieval" + (" and QA" if report.has_answers else "")]
    lines += ["", *quality_table(report)]
    if report.has_answers:
        lines += ["", "Answered: not empty, not a refusal. Correct decided by:", ""]
        lines += answer_notes(report)
    lines += ["", "## Efficiency (per query; usd is the total)", ""]
    lines += efficiency_table(report)
    for dimension in sorted({d for rep in report.systems for d in rep.breakdowns}):
        lines += ["", f"## By {dimension}", "", *breakdown_table(report, dimension)]
    if report.provenance:
        lines += ["", "## Provenance", "", *report.provenance]
    return "\n".join(lines) + "\n"


def csv_rows(report: Report) -> list[dict[str, str]]:
    """Return the summary as long-form rows: overall rows, then one per breakdown group."""
    rows: list[dict[str, str]] = []
    for rep in report.systems:
        values = {**rep.quality, **rep.efficiency, "errors": float(rep.errors)}
        rows.append(_csv_row("overall", "all", rep.system, values))
    for dimension in sorted({d for rep in report.systems for d in rep.breakdowns}):
        for rep in report.systems:
            for group, pooled in sorted(rep.breakdowns[dimension].items()):
                rows.append(_csv_row(dimension, group, rep.system, pooled))
    return rows


def _csv_row(section: str, group: str, system: str, values: dict[str, float]) -> dict[str, str]:
    row = {"section": section, "group": group, "system": system}
    for key in CSV_COLUMNS[3:]:
        value = values.get(key)
        row[key] = "" if value is None else str(round(value, 6))
    return row


def write_csv(report: Report, path: Path) -> Path:
    """Write summary.csv and return its path."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(CSV_COLUMNS))
        writer.writeheader()
        writer.writerows(csv_rows(report))
    return path
