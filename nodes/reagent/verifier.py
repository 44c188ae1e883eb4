"""ReAgent's verifier A_V: check each new evidence set against what is held; backtrack locally.

An unsupported assertion or one contradicting its own agent's knowledge is a local
conflict: BacktrackLocal(agent, r) reverts the agent's knowledge set to round r = t - 1,
rejects the offending sentence/row, and marks only that agent's sub-question for a
re-query. Depth is bounded by `backtrack_depth` (rounds an agent may revert); past it, or
without rounds left, the offending assertion is retracted instead. A contradiction with
another agent's assertion is escalated to the supervisor as a `challenge`. Under the
`no_backtracking` ablation the verifier still reports conflicts but changes nothing.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate, decision_record
from nodes.reagent.knowledge import union
from nodes.reagent.prompts import VERIFY_VERSION
from nodes.reagent.protocol import Decision, decide, message, reason_of
from nodes.reagent.verification import Judged, judge_llm, judge_offline
from state.reagent_state import (
    Assertion,
    LogEntry,
    Message,
    ReAgentContext,
    ReAgentState,
    ReAgentStep,
)
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

LOCAL = ("unsupported", "local-conflict")


class VerifierUpdate(CostUpdate, total=False):
    """The keys the verifier writes."""

    pending: list[int]
    knowledge: dict[str, list[Assertion]]
    rejected: list[str]
    conflicts: list[list[str]]
    local_backtracks: dict[str, list[int]]
    log: list[LogEntry]
    messages: list[Message]
    trace: list[ReAgentStep]


def can_backtrack(state: ReAgentState, context: ReAgentContext, agent: str) -> bool:
    """Tell whether an agent may still revert locally (ablation, depth, rounds left)."""
    done = len(state.get("local_backtracks", {}).get(agent, []))
    rounds_left = state.get("step", 0) < context.max_steps
    return not context.no_backtracking and done < context.backtrack_depth and rounds_left


def verifier(state: ReAgentState, runtime: Runtime[ReAgentContext]) -> VerifierUpdate:
    """Verify this round's assertions; backtrack, retract or escalate on conflicts."""
    context, meter = runtime.context, CostMeter()
    step = state.get("step", 0)
    new = [a for a in union(state.get("knowledge", {})) if a["step"] == step]
    decision = _judge(state, context, new, meter)
    update: VerifierUpdate = {"pending": [], "knowledge": {}, "rejected": [], "log": []}
    update["local_backtracks"] = {}
    update["messages"] = [_message(j, step) for j in decision.value]
    for agent in sorted({j.assertion["agent"] for j in decision.value}):
        local = [j for j in decision.value if j.assertion["agent"] == agent and j.verdict in LOCAL]
        if local and not context.no_backtracking:
            _resolve_local(state, context, agent, local, update)
    cross = [j for j in decision.value if j.verdict == "cross-conflict"]
    update["conflicts"] = [[j.assertion["id"], str(j.other)] for j in cross]
    backtracked = sorted(update["local_backtracks"])
    reason = reason_of(decision, f"round {step}: {len(new)} new, backtracked {backtracked}")
    verdicts = {j.assertion["id"]: j.verdict for j in decision.value}
    trace = decision_record(
        "verifier",
        decision.decided_by,
        reason,
        VERIFY_VERSION,
        verdicts=verdicts,
        backtracked=backtracked,
    )
    return {**update, "trace": [trace], "cost": meter.as_dict()}


def _resolve_local(
    state: ReAgentState,
    context: ReAgentContext,
    agent: str,
    local: list[Judged],
    update: VerifierUpdate,
) -> None:
    """Backtrack the agent one round and re-query its sub-question, or retract the culprits."""
    step = state.get("step", 0)
    held = state.get("knowledge", {}).get(agent, [])
    update["rejected"] = [
        *update.get("rejected", []),
        *(j.assertion["evidence"][-1] for j in local),
    ]
    if can_backtrack(state, context, agent):
        kept = [a for a in held if a["step"] < step]
        update["pending"] = [*update.get("pending", []), local[0].assertion["subquestion"]]
        earlier = state.get("local_backtracks", {}).get(agent, [])
        update["local_backtracks"] = {**update.get("local_backtracks", {}), agent: [*earlier, step]}
        note = f"backtrack to round {step - 1} and re-query"
        update["messages"] = [
            *update.get("messages", []),
            message("inform", "verifier", agent, step, note),
        ]
    else:
        drop = {j.assertion["id"] for j in local}
        kept = [a for a in held if a["id"] not in drop]
    update["knowledge"] = {**update.get("knowledge", {}), agent: kept}
    entry: LogEntry = {"agent": agent, "step": step, "assertions": [a["id"] for a in kept]}
    update["log"] = [*update.get("log", []), entry]


def _judge(
    state: ReAgentState, context: ReAgentContext, new: list[Assertion], meter: CostMeter
) -> Decision[list[Judged]]:
    knowledge = state.get("knowledge", {})
    held = [a for a in union(knowledge) if a["step"] < state.get("step", 0)]
    texts = {s["index"]: s["text"] for s in state.get("subquestions", [])}

    def offline() -> list[Judged]:
        return judge_offline(new, held, texts, context.min_coverage)

    def llm(caller: StructuredCaller) -> list[Judged]:
        return judge_llm(caller, state["question"], new, held, meter) if new else []

    return decide(state, context, meter, llm, offline)


def _message(judged: Judged, step: int) -> Message:
    assertion = judged.assertion
    if judged.verdict == "supported":
        return message("inform", "verifier", "assembler", step, "verified", assertion["id"])
    if judged.verdict == "cross-conflict":
        return message(
            "challenge",
            "verifier",
            "supervisor",
            step,
            f"contradicts {judged.other}",
            assertion["id"],
        )
    why = (
        "unsupported by its evidence"
        if judged.verdict == "unsupported"
        else (f"contradicts {judged.other} of the same agent")
    )
    return message("reject", "verifier", assertion["agent"], step, why, assertion["id"])
