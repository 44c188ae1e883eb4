"""The MCP tools as plain functions over the library: search and ask.

Each takes the server's settings and the call's arguments, returns a typed result fitted
into `max_chars`, and raises a FiFError (ToolInputError for bad arguments) whose message
the server hands to the assistant. Browsing tools live in mcp_server.browse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from graph_agent.registry import SYSTEMS
from graph_agent.render import snippet
from graph_agent.systems import run_system
from mcp_server.budget import cut, fill, room_left, size
from mcp_server.lookup import ToolInputError, require_text
from mcp_server.results import AskResult, ComponentHit, SearchResult, TraceStep
from mcp_server.settings import ServerSettings
from tools.graph_nav import node_content
from tools.layered_graph import LayeredGraph

SearchMode = Literal["dense", "sparse", "hybrid"]
SNIPPET_CHARS = 240
TRACE_TEXT_CHARS = 300
MAX_TABLE_ROWS = 10_000


def content_text(graph: LayeredGraph, node_id: str) -> str:
    """Return a node's whole content: paragraph text, a table as text, or a caption."""
    return node_content(graph, node_id, MAX_TABLE_ROWS).lstrip("\n")  # a table may lack a caption


def pages_of(graph: LayeredGraph, node_id: str) -> list[int] | None:
    """Return a node's [first, last] zero-indexed PDF pages, None outside PDFs."""
    span = graph.pages(node_id)
    return list(span) if span else None


def place(graph: LayeredGraph, node_id: str) -> dict[str, Any]:
    """Return where a component is: its id, document, type, section path and pages."""
    view = graph.node(node_id)
    return {
        "component_id": node_id,
        "doc_id": view.doc_id,
        "document_title": graph.title(view.doc_id),
        "type": view.kind,
        "section": list(graph.section(node_id)),
        "pages": pages_of(graph, node_id),
    }


def hit(graph: LayeredGraph, rank: int, node_id: str, score: float) -> ComponentHit:
    """Describe one ranked component with its place and a one-line snippet."""
    return ComponentHit(
        rank=rank,
        **place(graph, node_id),
        score=round(score, 6),
        snippet=snippet(graph, node_id, SNIPPET_CHARS),
    )


def search(
    settings: ServerSettings, query: str, k: int, mode: SearchMode, max_chars: int
) -> SearchResult:
    """Rank components for a query in one dense, sparse (BM25) or hybrid (RRF) search.

    Components are scored by their best sentence, table row or image region.
    """
    from tools.search import dense_search

    query = require_text(query, "query")
    index = settings.index()
    found = dense_search(index, query, "subcomponent", k, mode=mode)
    hits = [hit(index.graph, n, r.node_id, r.score) for n, r in enumerate(found, start=1)]
    result = SearchResult(query=cut(query, max_chars // 4), mode=mode, hits=[])
    kept, truncated = fill(hits, room_left(result, max_chars), "snippet")
    note = f"showing {len(kept)} of {len(hits)} hits; raise max_chars" if truncated else ""
    return result.model_copy(update={"hits": kept, "truncated": truncated, "note": note})


def ask(
    settings: ServerSettings,
    question: str,
    system: str,
    k: int,
    answer: bool,
    max_chars: int,
) -> AskResult:
    """Run a registered system on a question: its ranking, answer, trace and cost.

    Graph systems checkpoint the run next to the index, so its thread can be replayed.
    """
    question = require_text(question, "question")
    if system not in SYSTEMS:
        known = ", ".join(SYSTEMS)
        raise ToolInputError(f"unknown system {system!r}; choose one of {known}")
    context = settings.ask_context(SYSTEMS[system], k, answer)
    graph = settings.index().graph
    run = run_system(system, question, context)
    ranking = [
        hit(graph, n, r["component_id"], r["score"]) for n, r in enumerate(run.ranking, start=1)
    ]
    trace = [trace_step(record) for record in run.history]
    result = AskResult(
        question=cut(question, max_chars // 4),
        system=system,
        thread_id=run.thread_id,
        ranking=[],
        answer=None if run.answer is None else cut(run.answer, max_chars // 3),
        trace=[],
        cost=dict(run.cost),
        latency_ms=round(run.latency_ms, 1),
    )
    return fit_run(result, ranking, trace, max_chars, cut_answer=result.answer != run.answer)


def fit_run(
    result: AskResult,
    ranking: Sequence[ComponentHit],
    trace: Sequence[TraceStep],
    max_chars: int,
    cut_answer: bool,
) -> AskResult:
    """Fill the ranking first, then the trace, into what the budget leaves."""
    room = room_left(result, max_chars)
    kept_ranking, cut_ranking = fill(ranking, room, "snippet")
    room -= size(result.model_copy(update={"ranking": kept_ranking})) - size(result)
    kept_trace, cut_trace = fill(trace, room)
    cuts = [
        f"ranking {len(kept_ranking)} of {len(ranking)}" if cut_ranking else "",
        f"trace {len(kept_trace)} of {len(trace)} steps" if cut_trace else "",
        "answer cut" if cut_answer else "",
    ]
    note = "; ".join(c for c in cuts if c)
    return result.model_copy(
        update={
            "ranking": kept_ranking,
            "trace": kept_trace,
            "truncated": bool(note),
            "note": f"{note}; raise max_chars" if note else "",
        }
    )


def trace_step(record: Mapping[str, Any]) -> TraceStep:
    """Summarise one trace record: FiF's traversal, or another graph's node record."""
    strategy = record.get("strategy")
    step = record.get("step")
    if isinstance(strategy, Mapping):  # a FiF traversal (state.fif_state.StepRecord)
        how = f"{strategy['doc_mode']}/{strategy['comp_mode']}/{strategy['granularity']}"
        anchor = record.get("anchor")
        return TraceStep(
            step=step if isinstance(step, int) else None,
            subquery=cut(str(record.get("subquery", "")), TRACE_TEXT_CHARS),
            strategy=how,
            anchor=anchor if isinstance(anchor, int) else None,
            success=bool(record.get("success")),
            reason=cut(str(record.get("reason", "")), TRACE_TEXT_CHARS),
        )
    success = record.get("success")
    text = record.get("query") or record.get("sentence") or ""
    return TraceStep(
        step=step if isinstance(step, int) else None,
        subquery=cut(str(text), TRACE_TEXT_CHARS),
        strategy=str(record.get("node", "")),
        success=success if isinstance(success, bool) else None,
        reason=cut(str(record.get("reason", "")), TRACE_TEXT_CHARS),
    )
