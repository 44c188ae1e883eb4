"""IRCoT's stop rules as pure predicates over the state, read by the graph's routers.

The loop stops when the chain states an answer ("So the answer is ..."), when the
reasoner finds no new sentence, when a retrieval adds nothing to the pool, or after
`max_chain_steps` reasoning steps (or the shared `max_steps` retrieval budget). Every
count is derived from the append-only history, never kept in a counter.
"""

from __future__ import annotations

from state.ircot_state import IrcotContext, IrcotNode, IrcotState, IrcotStep


def records(state: IrcotState, node: IrcotNode) -> list[IrcotStep]:
    """Return the trace records one node appended, oldest first."""
    return [step for step in state.get("history", []) if step["node"] == node]


def retrievals(state: IrcotState) -> int:
    """Return how many retrievals ran (the question's included)."""
    return len(records(state, "retriever"))


def reasoning_steps(state: IrcotState) -> int:
    """Return how many reasoning steps ran."""
    return len(records(state, "reasoner"))


def stop_after_retrieval(state: IrcotState, context: IrcotContext) -> str | None:
    """Return why the loop ends after the latest retrieval, or None to keep reasoning."""
    done = records(state, "retriever")
    if done and not done[-1].get("new_components"):
        return f"retrieval {done[-1]['step']} found nothing new"
    if reasoning_steps(state) >= context.max_chain_steps:
        return f"reached max_chain_steps={context.max_chain_steps}"
    if len(done) >= context.max_steps:
        return f"reached the step budget max_steps={context.max_steps}"
    return None


def stop_after_reasoning(state: IrcotState) -> str | None:
    """Return why the loop ends after the latest reasoning step, or None to retrieve again."""
    done = records(state, "reasoner")
    if not done:
        raise ValueError("no reasoning step has run yet")
    if done[-1].get("answer"):
        return f"the chain reached an answer at step {done[-1]['step']}"
    if not done[-1].get("sentence"):
        return f"no new sentence at step {done[-1]['step']}"
    return None


def stop_reason(state: IrcotState, context: IrcotContext) -> str:
    """Return why the loop ended, judged by the node that ran last."""
    history = state.get("history", [])
    last = history[-1]["node"] if history else None
    if last == "reasoner":
        return stop_after_reasoning(state) or "stopped after reasoning"
    return stop_after_retrieval(state, context) or "stopped after retrieval"
