"""Assemble the iterative extraction loop (seed 002): extractor ⇄ synthesizer, then rank.

START → extractor → synthesizer → (extractor | ranker) → END. The synthesizer's verdict
routes: "needs" extracts its item next while iterations are left; "answer", "fail" or the
iteration cap rank. `langgraph.json` serves the graph as
`"extraction": "./graph_agent/extraction_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from graph_agent.binding import run_on_thread, with_checkpointer
from graph_agent.context_check import checks_context
from graph_agent.filing_scope import with_filing_scope
from graph_agent.results import RunResult, result_from_state
from graph_agent.timing import timed_node
from nodes.extraction.extractor import extractor
from nodes.extraction.ranker import ranker
from nodes.extraction.rules import stop_after_synthesis
from nodes.extraction.synthesizer import synthesizer
from state.extraction_state import (
    ExtractionContext,
    ExtractionInputState,
    ExtractionOutputState,
    ExtractionState,
)

INDEX_RETRY = RetryPolicy(max_attempts=3, retry_on=(ConnectionError, TimeoutError))
"""A remote Chroma can drop a connection; an extraction's searches are safe to repeat."""


def after_synthesizer(
    state: ExtractionState, runtime: Runtime[ExtractionContext]
) -> Literal["extractor", "ranker"]:
    """Extract the needed item unless the verdict or the iteration cap ends the loop."""
    return "ranker" if stop_after_synthesis(state, runtime.context) else "extractor"


def build_extraction_graph() -> StateGraph[
    ExtractionState, ExtractionContext, ExtractionInputState, ExtractionOutputState
]:
    """Return the uncompiled extraction-loop graph."""
    builder = StateGraph(
        ExtractionState,
        context_schema=ExtractionContext,
        input_schema=ExtractionInputState,
        output_schema=ExtractionOutputState,
    )
    builder.add_node("extractor", timed_node(checks_context(extractor)), retry_policy=INDEX_RETRY)
    builder.add_node("synthesizer", timed_node(synthesizer))
    builder.add_node("ranker", timed_node(ranker))
    builder.add_edge(START, "extractor")
    builder.add_edge("extractor", "synthesizer")
    builder.add_conditional_edges("synthesizer", after_synthesizer)
    builder.add_edge("ranker", END)
    return builder


def compile_extraction_graph(checkpointer: Any = None) -> Any:
    """Compile the graph, with a checkpointer if given (the server supplies its own)."""
    return build_extraction_graph().compile(checkpointer=checkpointer, name="extraction")


graph = compile_extraction_graph()
"""The graph `langgraph.json` serves, compiled once per process."""


def extraction_graph(checkpointer: Any = None) -> Any:
    """Return the compiled graph bound to a checkpointer (replay reads its threads)."""
    return with_checkpointer(graph, checkpointer)


def ask_extraction(
    question: str,
    context: ExtractionContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run the loop on one question: ranking, answer, trace (findings in subqueries), cost."""
    context = with_filing_scope(context, question)
    run = run_on_thread(graph, question, context, thread_id, checkpointer)
    return result_from_state(
        run.final, run.thread_id, run.latency_ms, "trace", run.final.get("verdicts", [])
    )
