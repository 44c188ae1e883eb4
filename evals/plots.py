"""Draw a Report's PNG plots with matplotlib's Agg canvas (no pyplot, no display, thread-safe)."""

from __future__ import annotations

import logging
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from evals.metrics import ALL_GOLD_KS, RETRIEVAL_KS
from evals.report_model import Report

logger = logging.getLogger(__name__)

RECALL_PLOT = "recall_at_k.png"
COST_PLOT = "recall_vs_cost.png"
_DPI = 120


def _save(figure: Figure, path: Path) -> Path:
    FigureCanvasAgg(figure)
    figure.tight_layout()
    figure.savefig(path, dpi=_DPI, metadata={"Software": None})
    return path


_CURVES = (("R", RETRIEVAL_KS, "o-"), ("AllGold", ALL_GOLD_KS, "s--"))
"""(metric, its k values, line style) of the recall-at-k plot."""


def recall_at_k_plot(report: Report, path: Path) -> Path:
    """Plot R@k (solid) and all-gold recall@k (dashed) against k, one colour per system."""
    figure = Figure(figsize=(8.0, 4.2))
    axes = figure.add_subplot()
    for index, rep in enumerate(report.systems):
        colour = f"C{index % 10}"
        for metric, ks, style in _CURVES:
            values = [rep.quality[f"{metric}@{k}"] for k in ks]
            label = rep.system if metric == "R" else None  # one legend entry per system
            axes.plot(ks, values, style, color=colour, label=label)
    axes.set_xscale("log")
    axes.set_xticks(RETRIEVAL_KS, [str(k) for k in RETRIEVAL_KS])
    axes.set_xlabel("k")
    axes.set_ylabel("recall")
    axes.set_ylim(0.0, 1.05)
    axes.set_title("Recall at k (solid: any gold, dashed: all gold)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    return _save(figure, path)


def _cost_panel(axes: Axes, report: Report, cost_key: str, label: str) -> None:
    for index, rep in enumerate(report.systems):
        colour = f"C{index % 10}"
        cost = rep.efficiency[cost_key]
        if cost_key == "usd" and rep.quality["n"]:
            cost /= rep.quality["n"]
        # a legend, not labels by the points: ablations sit close together and labels collide
        axes.scatter([cost], [rep.quality["R@10"]], color=colour, marker="o", label=rep.system)
        axes.scatter([cost], [rep.quality["AllGold@10"]], color=colour, marker="s")
    axes.set_xlim(left=0.0)
    axes.xaxis.set_major_locator(MaxNLocator(5))
    axes.set_xlabel(label)
    axes.set_ylabel("R@10 (o), all-gold@10 (s)")
    axes.set_ylim(0.0, 1.05)
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small", loc="lower right")


def recall_vs_cost_plot(report: Report, path: Path) -> Path:
    """Plot R@10 and all-gold@10 against p50 latency, and against $ per query if any was spent."""
    panels = [("latency_p50_ms", "p50 latency (ms)")]
    if report.spent_money:
        panels.append(("usd", "$ per query"))
    figure = Figure(figsize=(6.0 * len(panels), 4.2))
    for position, (key, label) in enumerate(panels, start=1):
        _cost_panel(figure.add_subplot(1, len(panels), position), report, key, label)
    figure.suptitle("Quality against cost")
    return _save(figure, path)


def write_plots(report: Report, out_dir: Path) -> list[Path]:
    """Write both plots into out_dir and return their paths (none when no system has results)."""
    if not report.systems:
        logger.warning("no results to plot in %s", out_dir)
        return []
    return [
        recall_at_k_plot(report, out_dir / RECALL_PLOT),
        recall_vs_cost_plot(report, out_dir / COST_PLOT),
    ]
