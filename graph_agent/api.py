"""Python entry points shared by the CLI, the eval runner and notebooks: ask, answer, results."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from state.context import Context
from state.fif_state import Ranked
from tools.questions import require_question

if TYPE_CHECKING:
    from tools.corpus_index import CorpusIndex
    from tools.cost import CostMeter


@dataclass(frozen=True)
class RunResult:
    """What one retrieval run returns, for any system of the toolkit."""

    ranking: list[Ranked]
    answer: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    cost: dict[str, float] = field(default_factory=dict)
    thread_id: str = ""
    latency_ms: float = 0.0
    subqueries: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)


def ask(
    question: str,
    context: Context,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run the FiF graph on one question and return its ranking, answer, trace and cost.

    The graph is compiled once per process (`graph_agent.graph.fif_graph`); a checkpointer is
    bound to it per call, without compiling again. The question is declared for embedding
    before the graph starts.
    """
    from graph_agent.filing_scope import with_filing_scope
    from graph_agent.graph import fif_graph
    from tools.corpus_index import open_index

    question = require_question(question)
    context = with_filing_scope(context, question)
    # the first hop's first need is the question's vector: the helper starts on it now,
    # 1.6 ms before the planner would declare it (tools.query_vectors)
    open_index(context.index_dir, context.chroma_url).prefetch_queries([question])
    graph = fif_graph(checkpointer)
    thread_id = thread_id or uuid.uuid4().hex
    config = {"configurable": {"thread_id": thread_id}}
    started = time.perf_counter()
    final = graph.invoke({"question": question}, config=config, context=context)
    return result_from_state(final, thread_id, (time.perf_counter() - started) * 1000.0)


def answer_from_components(
    index: CorpusIndex,
    question: str,
    component_ids: Sequence[str],
    context: Context,
    meter: CostMeter,
) -> str | None:
    """Answer a question from given components, as FiF's answerer node does.

    Systems that rank without the FiF graph (the dense baseline) answer through this; the
    answerer's module is imported on first use, so importing the API stays cheap.
    """
    from nodes.answerer import answer_from_components as answer

    return answer(index, question, component_ids, context, meter)


def result_from_state(
    final: Mapping[str, Any],
    thread_id: str,
    latency_ms: float,
    history_key: str = "history",
    subqueries: Iterable[Mapping[str, Any]] | None = None,
) -> RunResult:
    """Turn a graph's final state into a RunResult.

    The step records are the state's `history_key` list; `subqueries` are the sub-questions
    (or verdicts) the run worked through, by default the state's `subqueries`.
    """
    worked = final.get("subqueries", []) if subqueries is None else subqueries
    return RunResult(
        ranking=list(final.get("ranking", [])),
        answer=final.get("answer"),
        history=[dict(step) for step in final.get(history_key, [])],
        cost=dict(final.get("cost", {})),
        thread_id=thread_id,
        latency_ms=latency_ms,
        subqueries=[dict(item) for item in worked],
        fallbacks=list(final.get("fallbacks", [])),
    )
