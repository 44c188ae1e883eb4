"""Assemble IRCoT (Trivedi et al. 2023) as its own graph: retrieve ⇄ reason, then rank.

START → retriever → (reasoner → retriever)* → ranker → END. The routers only read the
stop rules of `nodes.ircot.rules`; `langgraph.json` serves the graph as
`"ircot": "./graph_agent/ircot_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, StateGraph
from langgraph.runtime import Runtime

from graph_agent.assembly import asker, assemble, compile_system
from nodes.ircot.ranker import ranker
from nodes.ircot.reasoner import reasoner
from nodes.ircot.retriever import retriever
from nodes.ircot.rules import stop_after_reasoning, stop_after_retrieval
from state.core import QuestionInput
from state.ircot_state import IrcotContext, IrcotOutputState, IrcotState


def after_retriever(
    state: IrcotState, runtime: Runtime[IrcotContext]
) -> Literal["reasoner", "ranker"]:
    """Reason on the new evidence unless a stop rule fires."""
    return "ranker" if stop_after_retrieval(state, runtime.context) else "reasoner"


def after_reasoner(state: IrcotState) -> Literal["retriever", "ranker"]:
    """Retrieve with the new sentence unless the chain answered or found no sentence."""
    return "ranker" if stop_after_reasoning(state) else "retriever"


def build_ircot_graph() -> StateGraph[IrcotState, IrcotContext, QuestionInput, IrcotOutputState]:
    """Return the uncompiled IRCoT graph; a retrieval is retried on a dropped connection."""
    return assemble(
        (IrcotState, IrcotContext, QuestionInput, IrcotOutputState),
        (retriever, reasoner, ranker),
        [("ranker", END)],
        [("retriever", after_retriever), ("reasoner", after_reasoner)],
        retried={"retriever"},
    )


graph = compile_system("ircot", build_ircot_graph)
"""The graph `langgraph.json` serves, compiled once per process."""

ask_ircot = asker("ircot", worked="chain")
"""Run IRCoT on one question and return its ranking, chain answer, trace and cost."""
