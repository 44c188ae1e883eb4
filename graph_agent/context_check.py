"""Check a run's input and RunSettings before its first node: a bad one is named, not a deep crash.

Studio, the SDK and `graph.invoke` start runs with whatever input and context the caller
sends (or none: the defaults), past the CLI and `graph_agent.api`. Every graph's entry node
is wrapped with `checks_context`, which refuses an empty question with the CLI's one-line
`InputError` (`tools.questions.require_question`), then opens the index the context names
(the one cached instance the nodes then share) and turns a missing, unfinished or
mismatched index, or an unknown scoped document, into a `ContextError` naming the field.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from langgraph.runtime import Runtime

from state.settings import RunSettings
from tools.corpus_index import open_index
from tools.errors import ContextError, FiFError
from tools.questions import require_question

EntryNode = TypeVar("EntryNode", bound=Callable[..., Any])


def require_index(context: RunSettings) -> None:
    """Open the index `context` names (cached), or raise a ContextError naming the field.

    Raises:
        ContextError: `context.index_dir: …` when no complete, matching index is there;
            `context.doc_scope: …` when a scoped document is not in it.
    """
    try:
        index = open_index(context.index_dir, context.chroma_url)
    except FiFError as err:
        raise ContextError(
            f"context.index_dir: {err} (or set index_dir in the run's context to a built index)"
        ) from err
    try:
        index.scoped(context.doc_scope)
    except FiFError as err:
        raise ContextError(f"context.doc_scope: {err}") from err


def checks_context(node: EntryNode) -> EntryNode:
    """Return the entry node, checking the question and the context before it runs.

    The wrapper keeps the node's name and signature (LangGraph reads the signature to
    pass `runtime`).
    """

    @functools.wraps(node)
    def run(state: Any, runtime: Runtime[RunSettings]) -> Any:
        require_question(state.get("question"))
        require_index(runtime.context)
        return node(state, runtime)

    return run  # type: ignore[return-value]
