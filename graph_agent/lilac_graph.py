"""Assemble LILaC (seed 001) as its own graph: START → decomposer → traverser → END.

It runs on the same index as FiF, so the two compare side by side in one harness;
`langgraph.json` serves it as `"lilac": "./graph_agent/lilac_graph.py:graph"`.
"""

from __future__ import annotations

from langgraph.graph import END, StateGraph

from graph_agent.assembly import asker, assemble, compile_system
from nodes.lilac.decomposer import decomposer
from nodes.lilac.traverser import traverser
from state.core import QuestionInput
from state.lilac_state import LilacContext, LilacOutputState, LilacState


def build_lilac_graph() -> StateGraph[LilacState, LilacContext, QuestionInput, LilacOutputState]:
    """Return the uncompiled LILaC graph; the traverser's vector calls are retried."""
    return assemble(
        (LilacState, LilacContext, QuestionInput, LilacOutputState),
        (decomposer, traverser),
        [("decomposer", "traverser"), ("traverser", END)],
        retried={"traverser"},
    )


graph = compile_system("lilac", build_lilac_graph)
"""The graph `langgraph.json` serves, compiled once per process."""

ask_lilac = asker("lilac")
"""Run LILaC on one question and return its top-k components, trace and cost."""
