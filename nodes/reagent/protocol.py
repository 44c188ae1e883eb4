"""What every ReAgent agent shares: typed messages, trace records, LLM-or-offline decisions.

An agent decision is an `LLMDecision` of the one protocol every system uses
(nodes.core.decision): it runs its LLM path when the context names a chat model and the run's
LLM budget and time have room, checks the proposal, and otherwise (or when the model gives
no valid answer after repair and retries) runs the offline twin and says so
(`offline-fallback` plus the reason).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from nodes.core.decision import Check, Decided, LLMDecision, run_decision, seconds_left
from state.core import llm_calls
from state.reagent_state import (
    Message,
    MessageKind,
    ReAgentContext,
    ReAgentState,
)
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

logger = logging.getLogger(__name__)

R = TypeVar("R")

Decision = Decided
"""ReAgent's name for a decision: the shared `nodes.core.decision.Decided` (value, author, note)."""


def message(
    kind: MessageKind,
    sender: str,
    receiver: str,
    step: int,
    content: str,
    assertion: str | None = None,
) -> Message:
    """Return one typed message for the log."""
    return {
        "kind": kind,
        "sender": sender,
        "receiver": receiver,
        "step": step,
        "assertion": assertion,
        "content": content,
    }


def reason_of(decision: Decision[Any], reason: str) -> str:
    """Return a record's reason with the fallback note, if any, appended."""
    return f"{reason}; {decision.note}" if decision.note else reason


def llm_room(state: ReAgentState, context: ReAgentContext) -> bool:
    """Tell whether another LLM call fits the run's call and token budgets."""
    cost = state.get("cost", {})
    tokens = cost.get("input_tokens", 0) + cost.get("output_tokens", 0)
    return llm_calls(state) < context.max_llm_calls and tokens < context.max_tokens


def decide(
    state: ReAgentState,
    context: ReAgentContext,
    meter: CostMeter,
    llm_path: Callable[[StructuredCaller], R],
    offline_path: Callable[[], R],
    checks: Sequence[Check[R]] = (),
) -> Decision[R]:
    """Run the LLM path when the context allows it and its proposal passes the checks.

    Otherwise (or after a failure) the offline twin decides; see nodes.core.decision.
    """
    decided = run_decision(
        LLMDecision(llm_path, offline_path, checks),
        context,
        meter,
        llm_room(state, context),
        seconds_left(state, context),
    )
    note = "; ".join(part for part in (decided.note, *decided.retries[-1:]) if part)
    return Decided(decided.value, decided.decided_by, note, decided.retries)
