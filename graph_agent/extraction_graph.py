"""Assemble the iterative extraction loop (seed 002): extractor ⇄ synthesizer, then rank.

START → extractor → synthesizer → (extractor | ranker) → END. The synthesizer's verdict
routes: "needs" extracts its item next while iterations are left; "answer", "fail" or the
iteration cap rank. `langgraph.json` serves the graph as
`"extraction": "./graph_agent/extraction_graph.py:graph"`.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, StateGraph
from langgraph.runtime import Runtime

from graph_agent.assembly import asker, assemble, compile_system
from graph_agent.filing_scope import with_filing_scope
from nodes.extraction.extractor import extractor
from nodes.extraction.ranker import ranker
from nodes.extraction.rules import stop_after_synthesis
from nodes.extraction.synthesizer import synthesizer
from state.core import QuestionInput
from state.extraction_state import ExtractionContext, ExtractionOutputState, ExtractionState


def after_synthesizer(
    state: ExtractionState, runtime: Runtime[ExtractionContext]
) -> Literal["extractor", "ranker"]:
    """Extract the needed item unless the verdict or the iteration cap ends the loop."""
    return "ranker" if stop_after_synthesis(state, runtime.context) else "extractor"


def build_extraction_graph() -> StateGraph[
    ExtractionState, ExtractionContext, QuestionInput, ExtractionOutputState
]:
    """Return the uncompiled extraction-loop graph; an extraction's searches are retried."""
    return assemble(
        (ExtractionState, ExtractionContext, QuestionInput, ExtractionOutputState),
        (extractor, synthesizer, ranker),
        [("extractor", "synthesizer"), ("ranker", END)],
        [("synthesizer", after_synthesizer)],
        retried={"extractor"},
    )


graph = compile_system("extraction", build_extraction_graph)
"""The graph `langgraph.json` serves, compiled once per process."""


ask_extraction = asker("extraction", worked="verdicts", prepare=with_filing_scope)
"""Run the loop on one question: ranking, answer, trace (findings in subqueries), cost."""
