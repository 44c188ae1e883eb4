"""Assemble the FiF graph: planner → orchestrator ⇄ traverser → evaluator; reranker → answerer."""

from __future__ import annotations

from typing import Any, cast

from langgraph.graph import END, StateGraph

from graph_agent.assembly import asker, assemble, compile_system
from graph_agent.binding import with_checkpointer
from graph_agent.filing_scope import with_filing_scope
from graph_agent.registry import SYSTEMS
from graph_agent.routing import after_evaluator, after_orchestrator, after_planner, after_reranker
from nodes.fif.answerer import answerer
from nodes.fif.evaluator import evaluator
from nodes.fif.orchestrator import orchestrator
from nodes.fif.planner import planner
from nodes.fif.reranker import reranker
from nodes.fif.traverser import traverser
from state.core import QuestionInput
from state.fif_context import FiFContext
from state.fif_state import FiFState, OutputState
from tools.corpus_index import open_index


def build_graph() -> StateGraph[FiFState, FiFContext, QuestionInput, OutputState]:
    """Return the uncompiled FiF StateGraph; each node's wall time is added to `cost`."""
    return assemble(
        (FiFState, FiFContext, QuestionInput, OutputState),
        (planner, orchestrator, traverser, evaluator, reranker, answerer),
        [("traverser", "evaluator"), ("answerer", END)],
        [("planner", after_planner), ("orchestrator", after_orchestrator),
         ("evaluator", after_evaluator), ("reranker", after_reranker)],
    )  # fmt: skip


graph = compile_system("fif", build_graph)
"""The graph `langgraph.json` serves; the server supplies its own checkpointer."""


def fif_graph(checkpointer: Any = None) -> Any:
    """Return this process's compiled FiF graph, saving to `checkpointer` if one is given.

    Callers that run the graph (ask, replay, the eval runner) use this, so a process compiles
    the graph once however many questions it asks.
    """
    return with_checkpointer(graph, checkpointer)


def prepared(context: FiFContext, question: str) -> FiFContext:
    """Return FiF's own settings scoped to the question's filings, its embedding under way.

    The question is declared for embedding before the graph starts: the first hop's first
    need is its vector, and the helper starts on it now (tools.query_vectors).
    """
    context = with_filing_scope(cast(FiFContext, SYSTEMS["fif"].own_settings(context)), question)
    open_index(context.index_dir, context.chroma_url).prefetch_queries([question])
    return context


ask_fif = asker("fif", prepare=prepared)
"""Run FiF on one question: ranking, answer, trace and cost."""
