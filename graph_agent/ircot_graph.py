"""Assemble IRCoT (Trivedi et al. 2023) as its own graph: retrieve ⇄ reason, then rank.

START → retriever → (reasoner → retriever)* → ranker → END. The routers only read the
stop rules of `nodes.ircot.rules`; `langgraph.json` serves the graph as
`"ircot": "./graph_agent/ircot_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from graph_agent.binding import run_on_thread
from graph_agent.context_check import checks_context
from graph_agent.results import RunResult, result_from_state
from graph_agent.timing import timed_node
from nodes.ircot.ranker import ranker
from nodes.ircot.reasoner import reasoner
from nodes.ircot.retriever import retriever
from nodes.ircot.rules import stop_after_reasoning, stop_after_retrieval
from state.ircot_state import IrcotContext, IrcotInputState, IrcotOutputState, IrcotState

INDEX_RETRY = RetryPolicy(max_attempts=3, retry_on=(ConnectionError, TimeoutError))
"""A remote Chroma can drop a connection; a retrieval is safe to repeat."""


def after_retriever(
    state: IrcotState, runtime: Runtime[IrcotContext]
) -> Literal["reasoner", "ranker"]:
    """Reason on the new evidence unless a stop rule fires."""
    return "ranker" if stop_after_retrieval(state, runtime.context) else "reasoner"


def after_reasoner(state: IrcotState) -> Literal["retriever", "ranker"]:
    """Retrieve with the new sentence unless the chain answered or found no sentence."""
    return "ranker" if stop_after_reasoning(state) else "retriever"


def build_ircot_graph() -> StateGraph[IrcotState, IrcotContext, IrcotInputState, IrcotOutputState]:
    """Return the uncompiled IRCoT graph."""
    builder = StateGraph(
        IrcotState,
        context_schema=IrcotContext,
        input_schema=IrcotInputState,
        output_schema=IrcotOutputState,
    )
    builder.add_node("retriever", timed_node(checks_context(retriever)), retry_policy=INDEX_RETRY)
    builder.add_node("reasoner", timed_node(reasoner))
    builder.add_node("ranker", timed_node(ranker))
    builder.add_edge(START, "retriever")
    builder.add_conditional_edges("retriever", after_retriever)
    builder.add_conditional_edges("reasoner", after_reasoner)
    builder.add_edge("ranker", END)
    return builder


def compile_ircot_graph(checkpointer: Any = None) -> Any:
    """Compile the IRCoT graph, with a checkpointer if given (the server supplies its own)."""
    return build_ircot_graph().compile(checkpointer=checkpointer, name="ircot")


graph = compile_ircot_graph()
"""The graph `langgraph.json` serves, compiled once per process."""


def ask_ircot(
    question: str,
    context: IrcotContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run IRCoT on one question and return its ranking, chain answer, trace and cost."""
    run = run_on_thread(graph, question, context, thread_id, checkpointer)
    return result_from_state(
        run.final, run.thread_id, run.latency_ms, "history", run.final.get("chain", [])
    )
