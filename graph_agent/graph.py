"""Assemble the FiF graph: planner → orchestrator ⇄ traverser → evaluator; reranker → answerer."""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graph_agent.binding import with_checkpointer
from graph_agent.context_check import checks_context
from graph_agent.routing import after_evaluator, after_orchestrator, after_planner, after_reranker
from graph_agent.timing import timed_node
from nodes.answerer import answerer
from nodes.evaluator import evaluator
from nodes.orchestrator import orchestrator
from nodes.planner import planner
from nodes.reranker import reranker
from nodes.traverser import traverser
from state.context import Context
from state.fif_state import FiFState, InputState, OutputState


def build_graph() -> StateGraph[FiFState, Context, InputState, OutputState]:
    """Return the uncompiled FiF StateGraph; each node's wall time is added to `cost`."""
    builder = StateGraph(
        FiFState, context_schema=Context, input_schema=InputState, output_schema=OutputState
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
