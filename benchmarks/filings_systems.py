"""The systems of benchmarks/filings_bench.py that need a complete index (vectors, Chroma)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.crude_anchor import CrudeAnchor
from evals.filing_eval import FilingQuestion, PageSystem
from state.fif_context import FiFContext
from state.settings import RunSettings
from tools.corpus_index import CorpusIndex, open_index
from tools.layered_graph import LayeredGraph
from tools.page_ranking import ChunkScores
from tools.search import dense_search, similarities

PageSettings = Callable[[str], dict[str, float]]
"""fold -> a run's page_weights (the views' weights and `system`, chosen on the other folds)."""


def index_scores(index_dir: Path) -> tuple[LayeredGraph, Callable[[str], ChunkScores]]:
    """Return the index's graph and, per question, the scores of its stored chunk vectors."""
    index = open_index(index_dir)

    def scores(question: str) -> ChunkScores:
        return lambda ids, layer: similarities(index, question, layer, ids) if ids else {}

    return index.graph, scores


def _dense(index: CorpusIndex) -> PageSystem:
    def system(q: FilingQuestion, single: bool) -> list[str]:
        scoped = index.scoped(list(q.docs) if single else None)
        found = dense_search(scoped, q.question, "subcomponent", 10)
        return index.graph.page_ranking(node.node_id for node in found)

    return system


def _graph_system(
    index: CorpusIndex,
    run: Callable[..., Any],
    kind: type[RunSettings],
    page_settings: PageSettings | None,
    routing: bool = True,
) -> PageSystem:
    """Return a graph system: page_settings None runs it without page order, routing as given."""

    def system(q: FilingQuestion, single: bool) -> list[str]:
        weights = page_settings(q.fold) if page_settings else {}
        context = kind(
            index_dir=str(index.index_dir),
            top_k=10,
            doc_scope=tuple(q.docs) if single else None,
            filing_routing=routing,
            page_ranking=page_settings is not None,
            page_weights=weights,
        )
        result = run(q.question, context)
        return index.graph.page_ranking(entry["component_id"] for entry in result.ranking)

    return system


def system_table(
    index_dir: Path, raw: Path, out: Path, page_settings: Callable[[str], PageSettings]
) -> dict[str, PageSystem]:
    """Return the anchor, dense, and FiF and the extraction loop in three settings each.

    `-main`: no routing, no page order; `-routed`: routing only; no suffix: routing and
    the page order fused with the system's (`page_settings(system)`: the weights of the
    question's held-out round).
    """
    from graph_agent.api import ask
    from graph_agent.extraction_graph import ask_extraction
    from state.extraction_state import ExtractionContext

    index = open_index(index_dir)
    anchor = CrudeAnchor(index, raw / "pdfs", out / "anchor")
    return {
        "anchor": lambda q, single: anchor.rank(q.question, list(q.docs) if single else None),
        "dense": _dense(index),
        "extraction-main": _graph_system(index, ask_extraction, ExtractionContext, None, False),
        "extraction-routed": _graph_system(index, ask_extraction, ExtractionContext, None),
        "extraction": _graph_system(
            index, ask_extraction, ExtractionContext, page_settings("extraction")
        ),
        "fif-main": _graph_system(index, ask, FiFContext, None, False),
        "fif-routed": _graph_system(index, ask, FiFContext, None),
        "fif": _graph_system(index, ask, FiFContext, page_settings("fif")),
    }
