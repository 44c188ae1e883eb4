"""Human-readable output of the CLI: rankings, build summaries, traces and costs as rich tables."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from state.render import table_text
from tools.layered_graph import LayeredGraph
from tools.manifest import Manifest

SNIPPET_CHARS = 110


def snippet(graph: LayeredGraph, node_id: str, limit: int = SNIPPET_CHARS) -> str:
    """Return the first characters of a node's content on one line."""
    view = graph.node(node_id)
    text = view.text
    if view.kind == "table":
        text = f"{text} | {table_text(view.attrs.get('header', []), view.attrs.get('rows', []), 2)}"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def ranking(console: Console, graph: LayeredGraph, ranked: Sequence[tuple[str, float]]) -> None:
    """Print ranked components with type, document title, score and snippet."""
    table = Table(title="Ranked components", show_lines=False)
    for column in ("#", "component", "type", "document", "score", "snippet"):
        table.add_column(column, overflow="fold" if column == "snippet" else "ellipsis")
    for rank, (node_id, score) in enumerate(ranked, start=1):
        view = graph.node(node_id)
        table.add_row(  # corpus text may hold "[...]": not markup
            str(rank),
            escape(node_id),
            view.kind,
            escape(graph.title(view.doc_id)),
            f"{score:.3f}",
            escape(snippet(graph, node_id)),
        )
    console.print(table)


def build_summary(console: Console, errors: Console, manifest: Manifest) -> None:
    """Print what a build produced, how long each stage took and what was skipped."""
    table = Table(title=f"Index {manifest.name}", show_header=False)
    table.add_row("corpus", escape(f"{manifest.corpus.path} ({manifest.corpus.kind})"))
    table.add_row(
        "embedder", f"{manifest.text_embedder.model_id} (dim {manifest.text_embedder.dim})"
    )
    table.add_row("images indexed via", manifest.images_indexed_via)
    table.add_row("counts", ", ".join(f"{k}={v}" for k, v in manifest.counts.items()))
    table.add_row("embedding", ", ".join(f"{k}={v}" for k, v in manifest.embedding.items()))
    table.add_row("timings (s)", ", ".join(f"{k}={v:.1f}" for k, v in manifest.timings.items()))
    table.add_row("unresolved links", str(manifest.unresolved_links))
    console.print(table)
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
