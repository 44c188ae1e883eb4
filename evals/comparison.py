"""One comparison of every system over several bundles: a table and a quality-vs-cost plot.

`benchmarks/compare_all.py` (make compare) runs `fif eval --compare all` per bundle and
hands the reports here; each report contributes one row and one point per system.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from evals.report_model import Report

COLUMNS = (
    ("R@1", "quality"),
    ("R@10", "quality"),
    ("AllGold@10", "quality"),
    ("MRR@10", "quality"),
    ("latency_p50_ms", "efficiency"),
    ("llm_calls", "efficiency"),
)
"""(key, where the report keeps it) of each column of the comparison table."""
PAGE_KEYS = {
    "R@1": "PageR@1",
    "R@10": "PageR@10",
    "AllGold@10": "AllPages@10",
    "MRR@10": "PageMRR@10",
}
"""A bundle with gold pages (FinanceBench) is compared by its page metrics instead."""
MARKERS = "os^Dv<>P*X"
"""One marker per bundle; colours go by system, so a system reads alike across bundles."""


def comparison_table(reports: Mapping[str, Report]) -> str:
    """Return a Markdown table: one row per (bundle, system), in report order.

    The last column is each system's p50 latency as a multiple of dense's in the same run
    (latencies only compare within one run: the machine's load changes between runs).
    """
    header = "| bundle | system | " + " | ".join(key for key, _ in COLUMNS) + " | p50 / dense |"
    lines = [header, "|---" * (3 + len(COLUMNS)) + "|"]
    for bundle, report in reports.items():
        dense = {rep.system: rep for rep in report.systems}.get("dense")
        label = f"{bundle} (pages)" if report.has_pages else bundle
        for rep in report.systems:
            values = [getattr(rep, where)[_key(report, key)] for key, where in COLUMNS]
            cells = [f"{v:.1f}" if key.endswith("_ms") else f"{v:.3f}" for v, (key, _) in
                     zip(values, COLUMNS, strict=True)]  # fmt: skip
            base = dense.efficiency["latency_p50_ms"] if dense else 0.0
            ratio = rep.efficiency["latency_p50_ms"] / base if base else None
            cells.append("–" if ratio is None else f"{ratio:.{2 if ratio < 1 else 1}f}x")
            lines.append(f"| {label} | {rep.system} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def comparison_plot(reports: Mapping[str, Report], path: Path) -> Path:
    """Plot all-gold@10 against p50 latency (log scale) and against LLM calls per question."""
    systems = _systems_in_order(reports.values())
    figure = Figure(figsize=(13.5, 5.0))
    panels = (
        ("latency_p50_ms", "p50 latency per question (ms, log)"),
        ("llm_calls", "LLM calls per question"),
    )
    for position, (key, label) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, 2, position)
        for marker, report in zip(MARKERS, reports.values(), strict=False):
            for rep in report.systems:
                colour = f"C{systems.index(rep.system) % 10}"
                quality = rep.quality[_key(report, "AllGold@10")]
                axes.scatter([rep.efficiency[key]], [quality], color=colour, marker=marker, s=46)
        if key == "latency_p50_ms":
            axes.set_xscale("log")
        else:
            axes.set_xlim(left=-0.5, right=max(1.0, axes.get_xlim()[1]))  # offline runs: all 0
        axes.set_xlabel(label)
        axes.set_ylabel("all-gold recall@10 (all pages@10 for page bundles)")
        axes.set_ylim(0.0, 1.05)
        axes.grid(alpha=0.3)
    # one entry per system (colour) and per bundle (marker), not one per point
    handles = [Line2D([], [], color=f"C{i % 10}", marker="o", linestyle="", label=name)
               for i, name in enumerate(systems)]  # fmt: skip
    handles += [Line2D([], [], color="black", markerfacecolor="none", marker=m, linestyle="",
                       label=bundle)
                for m, bundle in zip(MARKERS, reports, strict=False)]  # fmt: skip
    axes.legend(handles=handles, fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    figure.suptitle("Every system on every bundle: quality against cost (one run per bundle)")
    FigureCanvasAgg(figure)
    figure.tight_layout()
    figure.savefig(path, dpi=120, metadata={"Software": None})
    return path


def _systems_in_order(reports: Iterable[Report]) -> list[str]:
    names: dict[str, None] = {}
    for report in reports:
        names.update(dict.fromkeys(rep.system for rep in report.systems))
    return list(names)


def _key(report: Report, key: str) -> str:
    """Return the metric a column shows for a report: the page metric on page bundles."""
    return PAGE_KEYS.get(key, key) if report.has_pages else key
