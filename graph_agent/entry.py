"""The first node of every graph checks the run's input before doing anything with it.

Studio, `langgraph dev` clients and `graph.invoke` hand a graph its input directly, past the
CLI and `graph_agent.api`; the wrapped entry node refuses an empty question there with the
same one-line `InputError` (`tools.questions.require_question`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from tools.questions import require_question

NodeT = TypeVar("NodeT", bound=Callable[..., Any])


def question_checked(node: NodeT) -> NodeT:
    """Return the node with the state's `question` checked first (name and signature kept)."""

    @functools.wraps(node)
    def run(state: Any, runtime: Any) -> Any:
        require_question(state.get("question"))
        return node(state, runtime)

    return run  # type: ignore[return-value]
