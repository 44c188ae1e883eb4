"""Assemble LILaC (seed 001) as its own graph: START → decomposer → traverser → END.

It runs on the same index as FiF, so the two compare side by side in one harness;
`langgraph.json` serves it as `"lilac": "./graph_agent/lilac_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from graph_agent.binding import run_on_thread
from graph_agent.context_check import checks_context
from graph_agent.results import RunResult, result_from_state
from graph_agent.timing import timed_node
from nodes.lilac.decomposer import decomposer
from nodes.lilac.traverser import traverser
from state.lilac_state import LilacContext, LilacInputState, LilacOutputState, LilacState

INDEX_RETRY = RetryPolicy(max_attempts=3, retry_on=(ConnectionError, TimeoutError))
"""A remote Chroma can drop a connection; the traverser's vector calls are safe to repeat."""


def build_lilac_graph() -> StateGraph[LilacState, LilacContext, LilacInputState, LilacOutputState]:
    """Return the uncompiled LILaC graph."""
    builder = StateGraph(
        LilacState,
        context_schema=LilacContext,
        input_schema=LilacInputState,
        output_schema=LilacOutputState,
    )
    builder.add_node("decomposer", timed_node(checks_context(decomposer)))
    builder.add_node("traverser", timed_node(traverser), retry_policy=INDEX_RETRY)
    builder.add_edge(START, "decomposer")
    builder.add_edge("decomposer", "traverser")
    builder.add_edge("traverser", END)
    return builder


def compile_lilac_graph(checkpointer: Any = None) -> Any:
    """Compile the LILaC graph, with a checkpointer if given (the server supplies its own)."""
    return build_lilac_graph().compile(checkpointer=checkpointer, name="lilac")


graph = compile_lilac_graph()


def ask_lilac(
    question: str,
    context: LilacContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run LILaC on one question and return its top-k components, trace and cost."""
    run = run_on_thread(graph, question, context, thread_id, checkpointer)
    return result_from_state(run.final, run.thread_id, run.latency_ms, "trace")
