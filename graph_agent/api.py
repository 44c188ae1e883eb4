"""FiF's Python entry point for notebooks and scripts: `ask` (the graph compiles on first use)."""

from __future__ import annotations

from typing import Any

from graph_agent.results import RunResult
from state.fif_context import FiFContext


def ask(
    question: str,
    context: FiFContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
) -> RunResult:
    """Run the FiF graph on one question and return its ranking, answer, trace and cost.

    The graph is compiled on first use, once per process (`graph_agent.fif_graph`).
    """
    from graph_agent.fif_graph import ask_fif

    return ask_fif(question, context, thread_id=thread_id, checkpointer=checkpointer)
