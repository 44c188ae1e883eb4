"""Human-readable output of the CLI: rankings, build summaries, traces and costs as rich tables."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:  # the graph modules load networkx: a `--server` answer needs none of them
    from graph_agent.replay import CheckpointInfo
    from graph_agent.results import RunResult
    from tools.layered_graph import LayeredGraph
    from tools.manifest import Manifest, TripletKB

SNIPPET_CHARS = 110
SNIPPET_TABLE_ROWS = 2
PIPED_WIDTH = 200
"""Console width when output is not a terminal (a pipe, a file, CI) and $COLUMNS is unset:
rich would assume 80 columns and cut wide tables (eval summaries, rankings) short."""


def make_console(stderr: bool = False) -> Console:
    """Return a console for CLI output: the terminal's width, or PIPED_WIDTH when piped."""
    console = Console(stderr=stderr)
    if console.is_terminal or os.environ.get("COLUMNS"):
        return console
    return Console(stderr=stderr, width=PIPED_WIDTH)


def snippet(graph: LayeredGraph, node_id: str, limit: int = SNIPPET_CHARS) -> str:
    """Return the first characters of a node's content on one line."""
    from tools.graph_nav import node_content

    text = " ".join(node_content(graph, node_id, SNIPPET_TABLE_ROWS, " | ").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ranking(console: Console, graph: LayeredGraph, ranked: Sequence[tuple[str, float]]) -> None:
    """Print ranked components with type, document title, score and snippet."""
    rows = []
    for node_id, score in ranked:
        view = graph.node(node_id)
        title = graph.title(view.doc_id)
        text = snippet(graph, node_id, SNIPPET_CHARS - len(title))
        rows.append(
            {"component_id": node_id, "score": score, "type": view.kind}
            | {"title": title, "snippet": text}
        )
    ranked_cards(console, rows)


def ranked_cards(console: Console, cards: Sequence[Mapping[str, Any]]) -> None:
    """Print result cards (component_id, score, type, title, snippet), as `fif serve` returns."""
    table = Table(title="Ranked components", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score")
    table.add_column("type")
    table.add_column("component  ·  document: content", overflow="fold", ratio=1)
    for rank, card in enumerate(cards, start=1):
        title, text = str(card["title"]), str(card["snippet"])
        if len(title) + len(text) > SNIPPET_CHARS:  # a server's snippet ignores the title
            text = text[: max(SNIPPET_CHARS - len(title) - 1, 0)] + "…"
        cell = f"[bold]{escape(str(card['component_id']))}[/bold]\n{escape(title)}: {escape(text)}"
        table.add_row(str(rank), f"{float(card['score']):.3f}", str(card["type"]), cell)
    console.print(table)  # corpus text is escaped


def run(console: Console, graph: LayeredGraph, result: RunResult) -> None:
    """Print a run: its ranking, answer, trace and cost."""
    ranking(console, graph, [(r["component_id"], r["score"]) for r in result.ranking])
    if result.answer:
        console.print(f"answer: {escape(result.answer)}", highlight=False)
    history(console, result.history)
    cost(console, result.cost, None if result.finished else result.latency_ms)


def run_json(console: Console, result: RunResult) -> None:
    """Print a run as JSON for machines."""
    payload = {
        "ranking": result.ranking,
        "answer": result.answer,
        "subqueries": result.subqueries,
        "fallbacks": result.fallbacks,  # each decision an LLM could not make, and why
        "trace": result.history,
        "cost": result.cost,
        "thread_id": result.thread_id,
        "finished": result.finished,
    }
    console.print_json(json.dumps(payload))


def build_summary(console: Console, errors: Console, manifest: Manifest) -> None:
    """Print what a build produced, how long each stage took and what was skipped."""
    table = Table(title=f"Index {manifest.name}", show_header=False)
    table.add_row("corpus", escape(f"{manifest.corpus.path} ({manifest.corpus.kind})"))
    table.add_row(
        "embedder", f"{manifest.text_embedder.model_id} (dim {manifest.text_embedder.dim})"
    )
    table.add_row("images indexed via", manifest.images_indexed_via)
    table.add_row("counts", ", ".join(f"{k}={v}" for k, v in manifest.counts.items()))
    table.add_row("documents", ", ".join(f"{k}={v}" for k, v in manifest.documents.items()))
    table.add_row("embedding", ", ".join(f"{k}={v}" for k, v in manifest.embedding.items()))
    table.add_row("timings (s)", ", ".join(f"{k}={v:.1f}" for k, v in manifest.timings.items()))
    table.add_row("unresolved links", str(manifest.unresolved_links))
    if manifest.triplets is not None:
        table.add_row("triplet KB", escape(triplet_line(manifest.triplets)))
    console.print(table)
    if manifest.triplets is not None and manifest.triplets.problems:
        errors.print(
            f"[yellow]triplets: {manifest.triplets.failed} units failed and "
            f"{manifest.triplets.not_asked} were not asked; they are embedded as text and the "
            "next build asks again (manifest.json lists the first reasons)[/yellow]"
        )
    problems = [("skipped", p) for p in manifest.skipped] + [
        ("repaired", p) for p in manifest.repaired
    ]
    if problems:
        errors.print(
            f"[yellow]{len(manifest.skipped)} inputs skipped, "
            f"{len(manifest.repaired)} repaired (kept in manifest.json):[/yellow]"
        )
        for label, problem in problems[:50]:
            line = escape(f"  {label}: {problem.where}: {problem.problem}")  # corpus text
            errors.print(line, highlight=False, soft_wrap=True)
        if len(problems) > 50:
            errors.print(f"  … and {len(problems) - 50} more")


def triplet_line(kb: TripletKB) -> str:
    """Summarise the triplet KB of a build in one line."""
    return (
        f"{kb.triplets} triplets from {kb.with_triplets} of {kb.units} units "
        f"({kb.as_text} as text; reused {kb.reused}, asked {kb.asked}, failed {kb.failed}); "
        f"{kb.llm_calls} LLM calls, {kb.input_tokens + kb.output_tokens} tokens, "
        f"${kb.usd:.4f} ({kb.extractor})"
    )


def trace(console: Console, steps: Sequence[dict[str, object]]) -> None:
    """Print the step trace: subquery, strategy, anchor, success and the evaluator's reason."""
    table = Table(title="Trace")
    for column in ("step", "subquery", "strategy", "anchor", "success", "reason"):
        table.add_column(column, overflow="fold")
    for step in steps:
        strategy = step["strategy"]
        assert isinstance(strategy, dict)
        mark = "answered" if step.get("answerable") else "yes" if step.get("success") else "no"
        table.add_row(
            str(step["step"]),
            escape(str(step["subquery"])[:80]),
            f"{strategy['doc_mode']}/{strategy['comp_mode']}/{strategy['granularity']}",
            str(step.get("anchor")),
            mark,
            escape(str(step.get("reason", ""))),
        )
    console.print(table)


def history(console: Console, records: Sequence[dict[str, object]]) -> None:
    """Print a run's trace: FiF's traversal records, or another graph's node records."""
    if records and "strategy" in records[0]:
        trace(console, records)
    elif records:
        steps(console, records)


def steps(console: Console, records: Sequence[dict[str, object]]) -> None:
    """Print the trace of a non-FiF graph: node, step, who decided, what it did and why.

    A record whose detail carries a drawing (MMAPG's planning graph) has it printed below.
    """
    table = Table(title="Trace")
    for column in ("node", "step", "decided by", "query / sentence", "reason"):
        table.add_column(column, overflow="fold")
    drawings = []
    for record in records:
        text = record.get("query") or record.get("sentence") or ""
        table.add_row(
            str(record.get("node", "")),
            str(record.get("step", "")),
            str(record.get("decided_by", "")),
            escape(str(text)[:120]),
            escape(str(record.get("reason", ""))),
        )
        detail = record.get("detail")
        if isinstance(detail, dict) and isinstance(detail.get("graph"), str):
            drawings.append(detail["graph"])
    console.print(table)
    for drawing in drawings:
        console.print(escape(drawing), highlight=False)


def cost(console: Console, tally: dict[str, float], latency_ms: float | None) -> None:
    """Print the cost summary: LLM calls, tokens, dollars and the time split.

    `latency_ms` is None for a stored result nothing ran for (a finished thread resumed).
    """
    t = {
        key: tally.get(key, 0)
        for key in (
            "llm_calls",
            "input_tokens",
            "output_tokens",
            "usd",
            "llm_ms",
            "vector_ms",
            "sparse_ms",
            "embedding_ms",
            "fallbacks",
            "llm_failed_attempts",
        )
    }
    took = "time of the original run" if latency_ms is None else f"time {latency_ms:.0f} ms"
    line = (
        f"cost: {int(t['llm_calls'])} LLM calls, {int(t['input_tokens'])} in / "
        f"{int(t['output_tokens'])} out tokens, ${t['usd']:.4f}; {took} "
        f"(LLM {t['llm_ms']:.0f}, vector {t['vector_ms']:.0f}, BM25 {t['sparse_ms']:.0f}, "
        f"embedding {t['embedding_ms']:.0f})"
    )
    if t["llm_failed_attempts"]:
        line += f"; {int(t['llm_failed_attempts'])} LLM attempts got no reply"
    if t["fallbacks"]:
        line += f"; {int(t['fallbacks'])} offline fallbacks"
    console.print(line, highlight=False)


def checkpoints(console: Console, rows: Sequence[CheckpointInfo]) -> None:
    """Print a thread's checkpoints with the action taken at each."""
    table = Table(title="Checkpoints (oldest first)")
    for column in ("checkpoint_id", "parent", "step", "traversals", "last action", "next"):
        table.add_column(column, overflow="fold")
    previous = None
    for row in rows:
        forked = row.parent_id is not None and row.parent_id != previous
        table.add_row(
            row.checkpoint_id,
            f"fork of {row.parent_id}" if forked else "",
            str(row.step),
            str(row.traversals),
            escape(row.last_action),
            ", ".join(row.next_nodes) or "(done)",
        )
        previous = row.checkpoint_id
    console.print(table)


def error_line(error: Exception) -> str:
    """Return an error as the one line the CLI prints (a setting's error names the setting)."""
    errors = getattr(error, "errors", None)
    if callable(errors):  # a pydantic ValidationError of a setting
        first = errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"invalid setting {where!r}: {first['msg']} (got {first.get('input')!r})"
    return " ".join(str(error).split())  # one line, even for wrapped causes
