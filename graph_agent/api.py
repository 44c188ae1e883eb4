"""Python entry points shared by the CLI, the eval runner and notebooks: ask, answer, results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graph_agent.results import RunResult
from state.fif_context import FiFContext
from state.settings import RunSettings

if TYPE_CHECKING:
    from tools.corpus_index import CorpusIndex
    from tools.cost import CostMeter


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


def answer_from_components(
    index: CorpusIndex,
    question: str,
    component_ids: Sequence[str],
    context: RunSettings,
    meter: CostMeter,
) -> str | None:
    """Answer a question from given components, as FiF's answerer node does.

    Systems that rank without the FiF graph (the dense baseline) answer through this; the
    answerer's module is imported on first use, so importing the API stays cheap.
    """
    from nodes.core.answering import answer_from_components as answer

    return answer(index, question, component_ids, context, meter)
