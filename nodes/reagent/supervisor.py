"""ReAgent's supervisor A_S: resolve conflicts that span agents (seed 004, §4.2 and §4.4).

Over the global knowledge set Φ (the union of the agents' sets) and the contradictions the
verifier escalated, the supervisor finds a minimal conflicting set Ψ. With budget left it
asks for a global backtrack: every agent returns to the round before Ψ's earliest
assertion, the weaker assertions' evidence is rejected, and the affected sub-questions are
queried again. The caller performs it as a fork from that round's LangGraph checkpoint
(`graph_agent.reagent_graph`). Without budget (or with global backtracking off) Ψ is
retracted; if nothing remains, the run reports that no consistent knowledge is left.
Under the `no_backtracking` ablation conflicts are logged and everything is kept.
"""

from __future__ import annotations

from typing import TypedDict

from langgraph.runtime import Runtime

from nodes.core.decision import decision_record
from nodes.reagent.knowledge import evidence_units, minimal_conflict_set, union
from nodes.reagent.protocol import message
from state.reagent_state import (
    Assertion,
    LogEntry,
    Message,
    Outcome,
    ReAgentContext,
    ReAgentState,
    ReAgentStep,
    Rollback,
)


class SupervisorUpdate(TypedDict, total=False):
    """The keys the supervisor writes."""

    knowledge: dict[str, list[Assertion]]
    rollback: Rollback | None
    outcome: Outcome
    log: list[LogEntry]
    messages: list[Message]
    trace: list[ReAgentStep]


def global_backtracks(state: ReAgentState) -> int:
    """Count the global backtracks of this run (forks carry the supervisor's record along)."""
    return sum(
        1 for s in state.get("trace", []) if s["node"] == "supervisor" and s["detail"]["rollback"]
    )


def strength(state: ReAgentState, assertion: Assertion) -> tuple[float, int]:
    """Rank an assertion by its evidence's fused score, then by earlier sub-question."""
    evidence = state.get("evidence", {}).get(str(assertion["subquestion"]), [])
    score = next(
        (e["score"] for e in evidence if e["component_id"] == assertion["evidence"][0]), 0.0
    )
    return score, -assertion["subquestion"]


def outcome_of(state: ReAgentState) -> Outcome:
    """Say whether any assertion survives in Φ (else nothing consistent remains)."""
    return "consistent" if union(state.get("knowledge", {})) else "no-consistent-knowledge"


def conflict_set(state: ReAgentState) -> list[Assertion]:
    """Return a minimal conflicting subset Ψ of Φ under the escalated contradictions."""
    phi = union(state.get("knowledge", {}))
    reported = {frozenset(pair) for pair in state.get("conflicts", [])}
    return minimal_conflict_set(phi, lambda a, b: frozenset((a["id"], b["id"])) in reported)


def supervisor(state: ReAgentState, runtime: Runtime[ReAgentContext]) -> SupervisorUpdate:
    """Check Φ for cross-agent conflicts; request a rollback, retract, or accept."""
    context = runtime.context
    step = state.get("step", 0)
    psi = conflict_set(state)
    ids = [a["id"] for a in psi]
    if not psi or context.no_backtracking:
        reason = (
            f"{len(ids)} assertions in conflict, kept (forward only)" if psi else "Φ consistent"
        )
        trace = decision_record(
            "supervisor", "offline", reason, None, rollback=False, conflict_set=ids
        )
        return {"rollback": None, "outcome": outcome_of(state), "trace": [trace]}
    challenge = message("challenge", "supervisor", "all", step, f"minimal conflict set {ids}")
    allowed = context.global_backtracking and global_backtracks(state) < (
        context.max_global_backtracks
    )
    if allowed:
        return _request_rollback(state, psi, [challenge])
    return _retract(state, psi, [challenge])


def _request_rollback(
    state: ReAgentState, psi: list[Assertion], messages: list[Message]
) -> SupervisorUpdate:
    step = state.get("step", 0)
    ranked = sorted(psi, key=lambda a: strength(state, a), reverse=True)
    weaker = ranked[1:]
    to_step = min(a["step"] for a in psi) - 1
    phi = union(state.get("knowledge", {}))
    requery = sorted({a["subquestion"] for a in phi if a["step"] > to_step})
    rollback: Rollback = {
        "to_step": to_step,
        "conflict_set": [a["id"] for a in psi],
        "reject": evidence_units(weaker),
        "requery": requery,
    }
    messages += [
        message("reject", "supervisor", a["agent"], step, "weaker side of Ψ", a["id"])
        for a in weaker
    ]
    reason = f"roll every agent back to round {to_step}; re-query {requery}"
    trace = decision_record(
        "supervisor", "offline", reason, None, rollback=True, conflict_set=rollback["conflict_set"]
    )
    return {"rollback": rollback, "messages": messages, "trace": [trace]}


def _retract(
    state: ReAgentState, psi: list[Assertion], messages: list[Message]
) -> SupervisorUpdate:
    step = state.get("step", 0)
    drop = {a["id"] for a in psi}
    knowledge = state.get("knowledge", {})
    changed = sorted({a["agent"] for a in psi})
    kept = {agent: [a for a in knowledge[agent] if a["id"] not in drop] for agent in changed}
    left = len(union({**knowledge, **kept}))
    outcome: Outcome = "consistent" if left else "no-consistent-knowledge"
    messages += [
        message("reject", "supervisor", a["agent"], step, "retracted: Ψ persists", a["id"])
        for a in psi
    ]
    log: list[LogEntry] = [
        {"agent": agent, "step": step, "assertions": [a["id"] for a in kept[agent]]}
        for agent in changed
    ]
    reason = f"no rollback left: retracted Ψ {sorted(drop)}, {left} assertions remain"
    trace = decision_record(
        "supervisor", "offline", reason, None, rollback=False, conflict_set=sorted(drop)
    )
    return {
        "knowledge": kept,
        "rollback": None,
        "outcome": outcome,
        "log": log,
        "messages": messages,
        "trace": [trace],
    }
