"""Assemble ReAgent (seed 004): decomposer → retriever ⇄ verifier → supervisor → assembler.

Local backtracking is the verifier → retriever edge (only the reverted agent's sub-question
is pending). Global backtracking is a checkpoint fork: when the supervisor asks for a
rollback, `ask_reagent` finds the checkpoint that closed the target round on the run's own
branch and forks from it with `update_state` (rejected evidence, the sub-questions to
re-query, the supervisor's messages and record, the cost spent on the abandoned branch),
then resumes. Each global backtrack is thus a visible fork in the thread's checkpoint
history (`fif replay`). `langgraph.json` serves the graph as
`"reagent": "./graph_agent/reagent_graph.py:graph"`; a served run that asks for a rollback
ends with the request in its state, for the user to fork from the named round.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, StateGraph

from graph_agent.assembly import assemble, compile_system
from graph_agent.binding import with_checkpointer
from graph_agent.results import RunResult
from graph_agent.threads import thread_metadata
from nodes.reagent.assembler import assembler
from nodes.reagent.decomposer import decomposer
from nodes.reagent.retriever import retriever
from nodes.reagent.supervisor import supervisor
from nodes.reagent.verifier import verifier
from state.reagent_state import (
    ReAgentContext,
    ReAgentInputState,
    ReAgentOutputState,
    ReAgentState,
    SubQuestion,
)

ROUND_CLOSERS = ("retriever", "supervisor")
"""What runs next at a checkpoint that closes a round (after the decomposer or verifier)."""


def after_verifier(state: ReAgentState) -> Literal["retriever", "supervisor"]:
    """Re-query the pending sub-questions, else go to the supervisor.

    The verifier only leaves sub-questions pending while rounds are left (`max_steps`), so
    the route needs no context; a fork applied with `update_state` can run it.
    """
    return "retriever" if state.get("pending") else "supervisor"


def build_reagent_graph() -> StateGraph[
    ReAgentState, ReAgentContext, ReAgentInputState, ReAgentOutputState
]:
    """Return the uncompiled ReAgent graph; the retriever's searches are retried."""
    return assemble(
        (ReAgentState, ReAgentContext, ReAgentInputState, ReAgentOutputState),
        (decomposer, retriever, verifier, supervisor, assembler),
        [("decomposer", "retriever"), ("retriever", "verifier"), ("supervisor", "assembler"),
         ("assembler", END)],
        [("verifier", after_verifier)],
        retried={"retriever"},
    )  # fmt: skip


graph = compile_system("reagent", build_reagent_graph)
"""The graph `langgraph.json` serves; a served run that asks for a rollback ends with it."""
_MEMORY = InMemorySaver()
"""Global backtracking forks checkpoints, so runs without a caller's saver use this one."""


def round_checkpoint(compiled: Any, config: dict[str, Any], to_step: int) -> Any:
    """Return the latest checkpoint on the run's branch that closed round `to_step`."""
    snapshot = compiled.get_state(config)
    while snapshot is not None:
        values = snapshot.values or {}
        closes = bool(snapshot.next) and snapshot.next[0] in ROUND_CLOSERS
        if closes and values.get("step") == to_step and values.get("subquestions"):
            return snapshot
        parent = snapshot.parent_config
        snapshot = compiled.get_state(parent) if parent else None
    raise LookupError(f"no checkpoint closes round {to_step} on this branch")


def cost_since(now: dict[str, float], then: dict[str, float]) -> dict[str, float]:
    """Return what a branch spent after a checkpoint (the fork keeps paying for it)."""
    return {key: round(value - then.get(key, 0), 6) for key, value in now.items()}


def fork_for_rollback(compiled: Any, config: dict[str, Any], final: dict[str, Any]) -> Any:
    """Fork the thread from the round the supervisor named; return the fork's config."""
    rollback = final["rollback"]
    target = round_checkpoint(compiled, config, rollback["to_step"])
    before = target.values
    new_trace = final.get("trace", [])[len(before.get("trace", [])) :]
    record = [s for s in new_trace if s["node"] == "supervisor" and s["detail"]["rollback"]][-1]
    record = {**record, "detail": {**record["detail"], "abandoned_steps": len(new_trace)}}
    new_messages = final.get("messages", [])[len(before.get("messages", [])) :]
    update = {
        "rollback": None,
        "pending": sorted(set(before.get("pending", [])) | set(rollback["requery"])),
        "rejected": rollback["reject"],
        "messages": [m for m in new_messages if m["sender"] == "supervisor"],
        "trace": [record],
        "cost": cost_since(final.get("cost", {}), before.get("cost", {})),
    }
    return compiled.update_state(target.config, update, as_node="verifier")


def _run_with_rollbacks(
    compiled: Any, inputs: dict[str, Any], config: dict[str, Any], context: ReAgentContext
) -> dict[str, Any]:
    """Run the graph, forking from an earlier round each time the supervisor asks to."""
    compiled.invoke(inputs, config=config, context=context)
    final: dict[str, Any] = compiled.get_state(config).values
    while final.get("rollback"):
        fork = fork_for_rollback(compiled, config, final)
        compiled.invoke(None, config=fork, context=context)
        final = compiled.get_state(config).values
    return final


def ask_reagent(
    question: str,
    context: ReAgentContext,
    *,
    thread_id: str | None = None,
    checkpointer: Any = None,
    subquestions: list[SubQuestion] | None = None,
) -> RunResult:
    """Run ReAgent on one question; global backtracks fork the thread's checkpoints."""
    compiled = with_checkpointer(graph, _MEMORY if checkpointer is None else checkpointer)
    thread_id = thread_id or uuid.uuid4().hex
    config: dict[str, Any] = {
        "configurable": {"thread_id": thread_id},
        "metadata": thread_metadata("reagent", context),
    }
    started = time.perf_counter()
    inputs: dict[str, Any] = {"question": question}
    if subquestions:
        inputs["subquestions"] = subquestions
    try:
        final = _run_with_rollbacks(compiled, inputs, config, context)
    finally:
        if checkpointer is None:  # the shared in-memory saver keeps no finished thread
            _MEMORY.delete_thread(thread_id)
    return RunResult(
        ranking=list(final.get("ranking", [])),
        answer=final.get("answer"),
        history=[dict(step) for step in final.get("trace", [])],
        cost=dict(final.get("cost", {})),
        thread_id=thread_id,
        latency_ms=(time.perf_counter() - started) * 1000.0,
        subqueries=[dict(s) for s in final.get("subquestions", [])],
    )
