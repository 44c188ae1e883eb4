"""LILaC's decomposer node: Q → 1–5 modality-labelled subqueries (seed 001, §4.2.1).

Behind one `Decomposer` protocol sit the LLM decomposer and its offline twin (clause
splitting plus keyword modality rules). The LLM decomposer is an `LLMDecision` of the one
protocol every system uses (nodes.core.decision): its plan is repaired and retried by
`StructuredCaller`, checked (every subquery grounded in the question), and when it gives no
usable answer the offline decision is used, recorded as `decided_by="offline-fallback"`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate, LLMDecision, run_decision, seconds_left
from nodes.core.guards import ungrounded
from nodes.lilac.heuristics import guess_modality, offline_subqueries
from nodes.lilac.prompts import (
    DECOMPOSE_JOINT_SYSTEM,
    DECOMPOSE_LIST_SYSTEM,
    DECOMPOSE_USER,
    DECOMPOSE_VERSION,
    MODALITY_SYSTEM,
    MODALITY_USER,
    MODALITY_VERSION,
)
from nodes.lilac.schemas import MAX_SUBQUERIES, Decomposition, ModalityChoice, SubqueryList
from state.lilac_state import (
    LilacContext,
    LilacState,
    LilacStep,
    LilacSubquery,
    Modality,
    ModalitySelection,
)
from state.settings import llm_enabled
from tools.cost import CostMeter
from tools.llm_calls import LLMFailure, StructuredCaller

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Plan:
    """A decomposition and how it was decided."""

    subqueries: list[LilacSubquery]
    decided_by: str
    reason: str
    prompt_version: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


class Decomposer(Protocol):
    """Turn a question into modality-labelled subqueries."""

    def decompose(self, question: str, meter: CostMeter) -> Plan:
        """Return the plan for one question, metering any model call."""
        ...


@dataclass(frozen=True)
class OfflineDecomposer:
    """Clause splitting and keyword modality rules; no model."""

    max_subqueries: int = MAX_SUBQUERIES

    def decompose(self, question: str, meter: CostMeter) -> Plan:
        """Return the clause-based plan."""
        subqueries = offline_subqueries(question, self.max_subqueries)
        return Plan(subqueries, "offline", f"{len(subqueries)} subqueries from clause splitting")


@dataclass(frozen=True)
class LLMDecomposer:
    """Decompose with a chat model; fall back to the offline twin when it fails."""

    context: LilacContext
    offline: OfflineDecomposer
    selection: ModalitySelection = "joint"
    time_left: float | None = None
    """Seconds of the run's time budget left (None: unbounded)."""

    def decompose(self, question: str, meter: CostMeter) -> Plan:
        """Return the model's plan, or the offline plan marked as a fallback."""
        joint = self.selection == "joint"
        decision: LLMDecision[Plan] = LLMDecision(
            lambda caller: (self._joint if joint else self._separate)(caller, question, meter),
            lambda: self.offline.decompose(question, meter),
            [lambda plan: ungrounded([s["text"] for s in plan.subqueries], [question])],
        )
        decided = run_decision(decision, self.context, meter, True, self.time_left)
        plan: Plan = decided.value
        retried = {"retries": list(decided.retries)} if decided.retries else {}
        if decided.decided_by == "llm":
            return Plan(plan.subqueries, "llm", plan.reason, plan.prompt_version,
                        {**plan.detail, **retried})  # fmt: skip
        return Plan(plan.subqueries, "offline-fallback", decided.note, DECOMPOSE_VERSION, retried)

    def _split_prompts(self, system: str, question: str) -> tuple[str, str]:
        """Return the system and user prompts asking for at most `max_subqueries` pieces."""
        system = system.format(max_subqueries=self.offline.max_subqueries)
        return system, DECOMPOSE_USER.format(question=question)

    def _at_most(self, reply: Decomposition | SubqueryList) -> None:
        """Refuse a reply with more subqueries than allowed (the model is asked to merge)."""
        _check_count(len(reply.subqueries), self.offline.max_subqueries)

    def _joint(self, caller: StructuredCaller, question: str, meter: CostMeter) -> Plan:
        prompts = self._split_prompts(DECOMPOSE_JOINT_SYSTEM, question)
        answer = caller.call(Decomposition, *prompts, meter, validate=self._at_most)
        pairs = [(s.text, s.modality) for s in answer.subqueries]
        return Plan(_numbered(pairs), "llm", "joint decomposition", DECOMPOSE_VERSION)

    def _separate(self, caller: StructuredCaller, question: str, meter: CostMeter) -> Plan:
        prompts = self._split_prompts(DECOMPOSE_LIST_SYSTEM, question)
        answer = caller.call(SubqueryList, *prompts, meter, validate=self._at_most)
        pairs: list[tuple[str, Modality]] = []
        guessed: list[int] = []
        for position, text in enumerate(answer.subqueries):
            try:
                choice = caller.call(
                    ModalityChoice,
                    MODALITY_SYSTEM.format(),
                    MODALITY_USER.format(subquery=text),
                    meter,
                )
                pairs.append((text, choice.modality))
            except LLMFailure as err:
                logger.warning("modality of subquery %d by keyword rules: %s", position, err)
                meter.fallbacks += 1
                guessed.append(position)
                pairs.append((text, guess_modality(text)))
        reason = "decomposition, then one modality call per subquery"
        if guessed:
            reason += f"; keyword rules for subqueries {guessed} after LLM failures"
        version = f"{DECOMPOSE_VERSION}+{MODALITY_VERSION}"
        return Plan(_numbered(pairs), "llm", reason, version, {"modality_fallbacks": guessed})


def _check_count(count: int, limit: int) -> None:
    if count > limit:
        raise ValueError(f"{count} subqueries, at most {limit} allowed; merge some")


def _numbered(pairs: list[tuple[str, Modality]]) -> list[LilacSubquery]:
    unique = list(dict.fromkeys(pairs))
    seen: set[str] = set()
    result: list[LilacSubquery] = []
    for text, modality in unique:
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        result.append({"index": len(result), "text": text, "modality": modality})
    return result


def decomposer_for(context: LilacContext, time_left: float | None = None) -> Decomposer:
    """Choose the decomposer the context asks for (the one place that decides)."""
    limit = min(context.max_subqueries, MAX_SUBQUERIES)
    offline = OfflineDecomposer(limit)
    if not llm_enabled(context) or context.max_llm_calls == 0:
        return offline
    return LLMDecomposer(context, offline, context.modality_selection, time_left)


class DecomposerUpdate(CostUpdate, total=False):
    """The keys the decomposer writes."""

    subqueries: list[LilacSubquery]
    trace: list[LilacStep]


def decomposer(state: LilacState, runtime: Runtime[LilacContext]) -> DecomposerUpdate:
    """Decompose the question into modality-labelled subqueries."""
    meter = CostMeter()
    time_left = seconds_left(state, runtime.context)
    plan = decomposer_for(runtime.context, time_left).decompose(state["question"], meter)
    step: LilacStep = {
        "node": "decomposer",
        "decided_by": plan.decided_by,
        "reason": plan.reason,
        "prompt_version": plan.prompt_version,
        "detail": {"subqueries": len(plan.subqueries), **plan.detail},
    }
    return {"subqueries": plan.subqueries, "trace": [step], "cost": meter.as_dict()}
