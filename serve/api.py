"""The JSON API over the indices: indices, systems, search, components, ask and compare.

Everything calls the library (tools.search, graph_agent.systems); the indices and their models
were opened once by the app's lifespan and are shared by every request. A route reading an
index takes `?index=NAME` (default: the first served).
"""

from __future__ import annotations

import time
from typing import Annotated, Any, cast, get_args

from fastapi import APIRouter, Path, Query

from graph_agent.registry import SYSTEMS, get_system
from graph_agent.replay import sqlite_checkpointer
from graph_agent.results import RunResult
from graph_agent.systems import run_system
from serve.branch_logs import result_payload
from serve.errors import NotFoundError
from serve.overview import overview
from serve.quota import Client
from serve.runs import streams
from serve.schemas import (
    MAX_K,
    MAX_QUESTION_CHARS,
    NOT_BLANK,
    AskRequest,
    CompareRequest,
    Granularity,
)
from serve.served import IndexState, ServerState
from serve.views import card, component_page, search_why
from state.settings import Backend
from state.tuning import SearchMode
from tools.cost import CostMeter
from tools.search import dense_search

router = APIRouter(prefix="/api")


@router.get("/indices")
async def indices(state: ServerState) -> dict[str, Any]:
    """List the served indices (the first is the default of `?index=`), with their sizes."""
    return {
        "indices": [
            {"name": name, "documents": len(entry.index.graph.documents())}
            for name, entry in state.indices.items()
        ],
        "default": next(iter(state.indices)),
    }


@router.get("/overview")
def index_overview(state: IndexState) -> dict[str, Any]:
    """Say what an index holds (counts by kind) and offer example starting points."""
    return {"index": state.name, **overview(state.index.graph)}


@router.get("/systems")
async def systems() -> dict[str, Any]:
    """List the systems and backends a run may use; `streams`: its steps arrive live."""
    return {
        "systems": [{"name": name, "streams": streams(name)} for name in SYSTEMS],
        "backends": list(get_args(Backend)),
        "search_modes": list(get_args(SearchMode)),
    }


@router.get("/search", response_model=None)  # no response model: no second thread hop
def search(
    state: IndexState,
    q: Annotated[
        str,
        Query(
            min_length=1,
            max_length=MAX_QUESTION_CHARS,
            pattern=NOT_BLANK,
            description="Query (not only spaces).",
        ),
    ],
    k: Annotated[int, Query(ge=1, le=MAX_K)] = 10,
    mode: Annotated[SearchMode, Query(description="dense | sparse (BM25) | hybrid")] = "dense",
    granularity: Granularity = "subcomponent",
) -> dict[str, Any]:
    """Rank components in one shot (no agent), with the passage that earned each score.

    A worker thread runs it (concurrent searches overlap where Chroma and numpy release the
    GIL); without a response model FastAPI encodes the dict on the loop instead of
    validating it in a second worker-thread hop.
    """
    meter = CostMeter()
    started = time.perf_counter()
    found = dense_search(state.index, q, granularity, k, meter, mode=mode)
    graph = state.index.graph
    results = [
        {**card(graph, node.node_id), "rank": rank, "score": round(node.score, 6)}
        | {"why": search_why(graph, node.node_id, node.evidence), "evidence": node.evidence}
        for rank, node in enumerate(found, start=1)
    ]
    elapsed = (time.perf_counter() - started) * 1000.0
    return {"query": q, "index": state.name, "mode": mode, "results": results} | {
        "cost": meter.as_dict(),
        "latency_ms": round(elapsed, 2),
    }


@router.get("/components/{component_id:path}")
async def component(
    state: IndexState, component_id: Annotated[str, Path(min_length=1, max_length=512)]
) -> dict[str, Any]:
    """Return a component (or subcomponent, or document) with its page and neighbours."""
    if component_id not in state.index.graph:
        raise NotFoundError(
            f"no component {component_id!r} in index {state.name!r}; ids come from its results"
        )
    return {**component_page(state.index.graph, component_id), "index": state.name}


@router.post("/ask")
def ask(state: IndexState, request: AskRequest, client: Client) -> dict[str, Any]:
    """Run one system on a question (blocking) and return its ranking, answer, trace and cost."""
    state.new_thread(request.thread_id)
    with state.quota.claim(client):
        return _ask(state, request.system, request, request.thread_id)  # None: system picks


@router.post("/compare")
def compare(state: IndexState, request: CompareRequest, client: Client) -> dict[str, Any]:
    """Run one question through several systems, one after another; results side by side."""
    with state.quota.claim(client):
        runs = {name: _ask(state, name, request, None) for name in request.systems}
    return {"question": request.question, "index": state.name, "runs": runs}


def _ask(
    state: IndexState, system: str, request: AskRequest | CompareRequest, thread_id: str | None
) -> dict[str, Any]:
    context = state.context(system, request)
    result = run_system(system, request.question, context, thread_id)
    candidates = _candidates(state, system, result) if result.thread_id else {}
    final = {"ranking": result.ranking, "answer": result.answer, "cost": result.cost}
    payload = result_payload(state.index.graph, final, candidates, result.history)
    return payload | {
        "system": system,
        "index": state.name,
        "thread_id": result.thread_id,
        "trace": result.history,
        "subqueries": result.subqueries,
        "fallbacks": result.fallbacks,
        "latency_ms": round(result.latency_ms, 2),
    }


def _candidates(state: IndexState, system: str, result: RunResult) -> dict[str, Any]:
    """Return a checkpointed run's candidates (what tells why each component ranked)."""
    spec = get_system(system)
    if not spec.replayable:
        return {}
    with sqlite_checkpointer(state.index_dir) as saver:
        config = {"configurable": {"thread_id": result.thread_id}}
        values = spec.compiled(saver).get_state(config).values or {}
    return cast(dict[str, Any], values.get("candidates", {}))
