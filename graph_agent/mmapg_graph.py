"""Assemble MMAPG (seed 003) as its own graph: an adaptive planning graph grown node by node.

```
START → plan_writer → planner ─┬─ Send × n → retriever ─→ planner   (parallel Retrieval nodes)
                               ├─ answerer ─────────────→ planner
                               ├─ planner                           (Question nodes)
                               └─ finisher → END                    (Stop, iteration cap)
```
It runs on the same index as FiF and LILaC; `langgraph.json` serves it as
`"mmapg": "./graph_agent/mmapg_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, Send

from graph_agent.binding import run_on_thread
from graph_agent.context_check import checks_context
from graph_agent.results import RunResult, result_from_state
from graph_agent.timing import timed_node
from nodes.mmapg.answerer import answerer
from nodes.mmapg.finisher import finisher
from nodes.mmapg.graph_view import llm_budget_left
from nodes.mmapg.plan_writer import plan_writer
from nodes.mmapg.planner import planner
from nodes.mmapg.retriever import retriever
from state.mmapg_state import (
    MMAPGContext,
    MMAPGInputState,
    MMAPGOutputState,
    MMAPGState,
    RetrieverInput,
)

INDEX_RETRY = RetryPolicy(max_attempts=3, retry_on=(ConnectionError, TimeoutError))
"""A remote Chroma can drop a connection; a retrieval's vector calls are safe to repeat."""


def retrieval_sends(state: MMAPGState, context: MMAPGContext) -> list[Send]:
    """Return one `Send` per planned Retrieval node, carrying its parents and LLM allowance."""
    by_id = {node["id"]: node for node in state["nodes"]}
    allowed = llm_budget_left(state, context.max_llm_calls, context.max_tokens)
    sends = []
    for action in state["pending"]:
        payload: RetrieverInput = {
            "question": state["question"],
            "action": action,
            "parents": [by_id[p] for p in action["parents"] if p in by_id],
            "llm_allowed": allowed,
            "cost": {"work_ms": state.get("cost", {}).get("work_ms", 0.0)},
        }
        sends.append(Send("retriever", payload))
    return sends


def after_planner(
    state: MMAPGState, runtime: Runtime[MMAPGContext]
) -> list[Send] | Literal["answerer", "finisher", "planner"]:
    """Follow the planner: Retrieval nodes in parallel, or answer, stop, or plan again."""
    kinds = {action["type"] for action in state.get("pending", [])}
    if kinds == {"retrieval"}:
        return retrieval_sends(state, runtime.context)
    if kinds == {"answer"}:
        return "answerer"
    if kinds == {"stop"}:
        return "finisher"
    if kinds == {"question"}:
        return "planner"  # the planner added the Question nodes itself
    raise ValueError(f"the planner left an impossible set of next nodes: {sorted(kinds)}")


def build_mmapg_graph() -> StateGraph[MMAPGState, MMAPGContext, MMAPGInputState, MMAPGOutputState]:
    """Return the uncompiled MMAPG graph."""
    builder = StateGraph(
        MMAPGState,
        context_schema=MMAPGContext,
        input_schema=MMAPGInputState,
        output_schema=MMAPGOutputState,
    )
    builder.add_node("plan_writer", timed_node(checks_context(plan_writer)))
    builder.add_node("planner", timed_node(planner))
    builder.add_node("retriever", timed_node(retriever), retry_policy=INDEX_RETRY)  # type: ignore[arg-type]
    builder.add_node("answerer", timed_node(answerer))
    builder.add_node("finisher", timed_node(finisher))
    builder.add_edge(START, "plan_writer")
    builder.add_edge("plan_writer", "planner")
    builder.add_conditional_edges(
        "planner", after_planner, ["retriever", "answerer", "finisher", "planner"]
    )
    builder.add_edge("retriever", "planner")
    builder.add_edge("answerer", "planner")
    builder.add_edge("finisher", END)
    return builder


def compile_mmapg_graph(checkpointer: Any = None) -> Any:
    """Compile the MMAPG graph, with a checkpointer if given (the server supplies its own)."""
    return build_mmapg_graph().compile(checkpointer=checkpointer, name="mmapg")


graph = compile_mmapg_graph()
"""The graph `langgraph.json` serves and `ask_mmapg` runs when no checkpointer is given."""


def ask_mmapg(
    question: str,
    context: MMAPGContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run MMAPG on one question; return its ranking, answer, trace (with the graph) and cost."""
    limit = recursion_limit(context)
    run = run_on_thread(graph, question, context, thread_id, checkpointer, recursion_limit=limit)
    questions = run.final.get("plan", {}).get("sub_questions", [])
    return result_from_state(
        run.final,
        run.thread_id,
        run.latency_ms,
        "trace",
        [{"index": i, "text": t} for i, t in enumerate(questions)],
    )


def recursion_limit(context: MMAPGContext) -> int:
    """Return a LangGraph step limit the iteration cap can never reach first.

    Each planner step is followed by at most one other super-step (parallel retrievers
    run in one), plus the plan writer and finisher.
    """
    return 2 * context.max_iterations + 4
