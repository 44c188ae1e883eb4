"""What every system's graph file shares: assembling, compiling once, asking through the registry.

A graph file describes its system's topology as data (nodes, edges, routes) and `assemble`
wires it the way every system is wired: each node timed (`graph_agent.timing`), the entry
node checking the question and context (`graph_agent.context_check`), index-bound nodes
retried on a dropped connection. `compile_system` compiles it under the system's registry
name, and `asker` returns the system's `ask_<system>` function: it runs the graph compiled
once per process on a thread and reads the result the way the registry's spec says.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Protocol

from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy
from langgraph.typing import ContextT, InputT, OutputT, StateT

from graph_agent.binding import run_on_thread
from graph_agent.context_check import checks_context
from graph_agent.registry import get_system
from graph_agent.results import RunResult, result_from_state
from graph_agent.timing import Node, timed_node
from tools.questions import require_question

INDEX_RETRY = RetryPolicy(max_attempts=3, retry_on=(ConnectionError, TimeoutError))
"""A remote Chroma can drop a connection; a node's index searches are safe to repeat."""

Route = tuple[Any, ...]
"""`(source, router)` or `(source, router, destinations)`, as `add_conditional_edges` takes."""

Worked = Callable[[Mapping[str, Any]], Iterable[Mapping[str, Any]]]
"""Reads the items a run worked through (sub-questions, verdicts, chain) from its final state."""


def assemble(
    schemas: tuple[type[StateT], type[ContextT], type[InputT], type[OutputT]],
    nodes: Sequence[Node],
    edges: Sequence[tuple[str, str]],
    routes: Sequence[Route] = (),
    retried: Collection[str] = (),
) -> StateGraph[StateT, ContextT, InputT, OutputT]:
    """Return an uncompiled graph: every node timed, the first one the entry checking context.

    Args:
        schemas: The state, context, input and output schemas.
        nodes: The node functions; each node's id is its function's name, the first is the entry.
        edges: The fixed edges after the entry (`(source, destination)`, END included).
        routes: The conditional edges.
        retried: Ids of the nodes retried on a dropped index connection (`INDEX_RETRY`).
    """
    state, context, input_schema, output_schema = schemas
    builder = StateGraph(
        state, context_schema=context, input_schema=input_schema, output_schema=output_schema
    )
    entry = nodes[0].__name__
    for node in nodes:
        name = node.__name__
        wrapped = timed_node(checks_context(node) if name == entry else node)
        builder.add_node(name, wrapped, retry_policy=INDEX_RETRY if name in retried else None)
    builder.add_edge(START, entry)
    for source, destination in edges:
        builder.add_edge(source, destination)
    for route in routes:
        builder.add_conditional_edges(*route)
    return builder


def compile_system(name: str, build: Callable[[], StateGraph[Any, Any, Any, Any]]) -> Any:
    """Compile a system's graph under its registry name, with no checkpointer.

    The module-level `graph` of each graph file is this: `langgraph.json` serves it (the
    server supplies its own checkpointer) and callers bind theirs without compiling again
    (`graph_agent.binding.with_checkpointer`).
    """
    return build().compile(name=get_system(name).name)


class Ask(Protocol):
    """Runs one system on one question (`SystemSpec.ask_function`)."""

    def __call__(
        self,
        question: str,
        context: Any,
        *,
        thread_id: str | None = None,
        checkpointer: Any = None,
    ) -> RunResult:
        """Return the run's ranking, answer, trace and cost; checkpoints go to `checkpointer`."""
        ...


def asker(
    name: str,
    worked: str | Worked = "subqueries",
    prepare: Callable[[Any, str], Any] | None = None,
) -> Ask:
    """Return the function that runs system `name`'s compiled graph on one question.

    The graph is the module-level `graph` of the spec's graph file; the step records are the
    spec's `history_key`, and the run config adds what the spec asks (e.g. a recursion limit).

    Args:
        name: The system's registry name.
        worked: The state key of the items the run worked through, or a function reading them.
        prepare: Returns the context to run with, from the context and the question
            (e.g. scoped to the filings the question names).
    """
    spec = get_system(name)
    read_worked = worked if callable(worked) else _key_reader(worked)

    def ask(
        question: str, context: Any, *, thread_id: str | None = None, checkpointer: Any = None
    ) -> RunResult:
        question = require_question(question)
        if prepare is not None:
            context = prepare(context, question)
        compiled, config = spec.module().graph, spec.run_config(context)
        run = run_on_thread(compiled, question, context, thread_id, checkpointer, **config)
        return result_from_state(
            run.final, run.thread_id, run.latency_ms, spec.history_key, read_worked(run.final)
        )

    ask.__doc__ = f"Run {name} on one question: ranking, answer, trace and cost."
    return ask


def _key_reader(key: str) -> Worked:
    def read(final: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
        return final.get(key, [])  # type: ignore[no-any-return]

    return read
