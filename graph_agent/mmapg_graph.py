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

from collections.abc import Mapping
from typing import Any, Literal

from langgraph.graph import END, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from graph_agent.assembly import asker, assemble, compile_system
from nodes.mmapg.answerer import answerer
from nodes.mmapg.finisher import finisher
from nodes.mmapg.graph_view import llm_budget_left
from nodes.mmapg.plan_writer import plan_writer
from nodes.mmapg.planner import planner
from nodes.mmapg.retriever import retriever
from state.core import QuestionInput
from state.mmapg_state import (
    MMAPGContext,
    MMAPGOutputState,
    MMAPGState,
    RetrieverInput,
)


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


def build_mmapg_graph() -> StateGraph[MMAPGState, MMAPGContext, QuestionInput, MMAPGOutputState]:
    """Return the uncompiled MMAPG graph; a retrieval's vector calls are retried."""
    return assemble(
        (MMAPGState, MMAPGContext, QuestionInput, MMAPGOutputState),
        (plan_writer, planner, retriever, answerer, finisher),
        [("plan_writer", "planner"), ("retriever", "planner"), ("answerer", "planner"),
         ("finisher", END)],
        [("planner", after_planner, ["retriever", "answerer", "finisher", "planner"])],
        retried={"retriever"},
    )  # fmt: skip


def sub_questions(final: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the plan's sub-questions, numbered: what an MMAPG run worked through."""
    questions = final.get("plan", {}).get("sub_questions", [])
    return [{"index": i, "text": text} for i, text in enumerate(questions)]


graph = compile_system("mmapg", build_mmapg_graph)
"""The graph `langgraph.json` serves and `ask_mmapg` runs."""

ask_mmapg = asker("mmapg", worked=sub_questions)
"""Run MMAPG on one question; return its ranking, answer, trace (with the graph) and cost."""


def recursion_limit(context: MMAPGContext) -> int:
    """Return a LangGraph step limit the iteration cap can never reach first.

    Each planner step is followed by at most one other super-step (parallel retrievers
    run in one), plus the plan writer and finisher.
    """
    return 2 * context.max_iterations + 4
