"""Assemble the FiF graph: planner → orchestrator ⇄ traverser → evaluator; reranker → answerer."""

from __future__ import annotations

from typing import Any, cast

from langgraph.graph import END, START, StateGraph

from graph_agent.binding import run_on_thread, with_checkpointer
from graph_agent.context_check import checks_context
from graph_agent.filing_scope import with_filing_scope
from graph_agent.registry import SYSTEMS
from graph_agent.results import RunResult, result_from_state
from graph_agent.routing import after_evaluator, after_orchestrator, after_planner, after_reranker
from graph_agent.timing import timed_node
from nodes.fif.answerer import answerer
from nodes.fif.evaluator import evaluator
from nodes.fif.orchestrator import orchestrator
from nodes.fif.planner import planner
from nodes.fif.reranker import reranker
from nodes.fif.traverser import traverser
from state.fif_context import FiFContext
from state.fif_state import FiFState, InputState, OutputState
from tools.corpus_index import open_index
from tools.questions import require_question


def build_graph() -> StateGraph[FiFState, FiFContext, InputState, OutputState]:
    """Return the uncompiled FiF StateGraph; each node's wall time is added to `cost`."""
    builder = StateGraph(
        FiFState, context_schema=FiFContext, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("planner", timed_node(checks_context(planner)))  # the entry checks context
    for node in (orchestrator, traverser, evaluator, reranker, answerer):
        builder.add_node(node.__name__, timed_node(node))  # working time, for the time budget
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", after_planner)
    builder.add_conditional_edges("orchestrator", after_orchestrator)
    builder.add_edge("traverser", "evaluator")
    builder.add_conditional_edges("evaluator", after_evaluator)
    builder.add_conditional_edges("reranker", after_reranker)
    builder.add_edge("answerer", END)
    return builder


def compile_graph(checkpointer: Any = None) -> Any:
    """Compile the FiF graph with an optional checkpointer (SQLite in the CLI, memory in tests)."""
    return build_graph().compile(checkpointer=checkpointer, name="fif")


graph = compile_graph()
"""The graph `langgraph.json` serves; the server supplies its own checkpointer."""


def fif_graph(checkpointer: Any = None) -> Any:
    """Return this process's compiled FiF graph, saving to `checkpointer` if one is given.

    Callers that run the graph (ask, replay, the eval runner) use this, so a process compiles
    the graph once however many questions it asks.
    """
    return with_checkpointer(graph, checkpointer)


def ask_fif(
    question: str,
    context: FiFContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run FiF on one question: ranking, answer, trace and cost.

    The question is declared for embedding before the graph starts: the first hop's first
    need is its vector, and the helper starts on it now (tools.query_vectors).
    """
    question = require_question(question)
    context = with_filing_scope(cast(FiFContext, SYSTEMS["fif"].own_settings(context)), question)
    open_index(context.index_dir, context.chroma_url).prefetch_queries([question])
    run = run_on_thread(graph, question, context, thread_id, checkpointer)
    return result_from_state(run.final, run.thread_id, run.latency_ms)
