"""The verifier's judgement of new assertions, offline or by LLM, as plain verdicts.

A verdict says whether a new assertion is supported by its evidence, contradicts an
assertion of its own agent (a local conflict) or one held by another agent (a cross-agent
conflict, escalated to the supervisor).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from nodes.core.prompts import as_data
from nodes.reagent.knowledge import slot_contradicts, supported
from nodes.reagent.prompts import VERIFY_SYSTEM, VERIFY_USER
from nodes.reagent.schemas import Verification
from state.reagent_state import Assertion
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

VerdictKind = Literal["supported", "unsupported", "local-conflict", "cross-conflict"]


@dataclass(frozen=True)
class Judged:
    """One new assertion's verdict and, for a conflict, the assertion it contradicts."""

    assertion: Assertion
    verdict: VerdictKind
    other: str | None = None


def judge_offline(
    new: Sequence[Assertion],
    held: Sequence[Assertion],
    subquestions: dict[int, str],
    min_coverage: float,
) -> list[Judged]:
    """Judge new assertions in rank order against what is held and what passed before them."""
    accepted = list(held)
    verdicts: list[Judged] = []
    for assertion in new:
        judged = _judge_one(assertion, accepted, subquestions, min_coverage)
        verdicts.append(judged)
        if judged.verdict in ("supported", "cross-conflict"):
            accepted.append(assertion)
    return verdicts


def _judge_one(
    assertion: Assertion,
    accepted: Sequence[Assertion],
    subquestions: dict[int, str],
    min_coverage: float,
) -> Judged:
    if not supported(assertion, subquestions[assertion["subquestion"]], min_coverage):
        return Judged(assertion, "unsupported")
    for other in accepted:
        if other["evidence"] != assertion["evidence"] and slot_contradicts(assertion, other):
            kind: VerdictKind = (
                "local-conflict" if other["agent"] == assertion["agent"] else "cross-conflict"
            )
            return Judged(assertion, kind, other["id"])
    return Judged(assertion, "supported")


def describe(assertions: Sequence[Assertion]) -> str:
    """Render assertions for the verifier prompt, one per line, evidence text included."""
    if not assertions:
        return "(none)"
    return as_data(
        "\n".join(
            f"- {a['id']} [{a['entity']} | {a['attribute']} = {a['value']}] from: {a['text'][:300]}"
            for a in assertions
        ),
        "assertions and the text they were read from",
    )


def judge_llm(
    caller: StructuredCaller,
    question: str,
    new: Sequence[Assertion],
    held: Sequence[Assertion],
    meter: CostMeter,
) -> list[Judged]:
    """Ask the chat model for one verdict per new assertion; ids it names must exist."""
    by_id = {a["id"]: a for a in [*held, *new]}
    new_ids = {a["id"] for a in new}

    def check(answer: Verification) -> None:
        judged = {v.assertion for v in answer.verdicts}
        if judged != new_ids:
            raise ValueError(f"judge exactly the new assertions {sorted(new_ids)}")
        unknown = [v.conflicts_with for v in answer.verdicts if v.conflicts_with not in by_id]
        if any(v.verdict == "contradicts" for v in answer.verdicts) and any(unknown):
            raise ValueError(f"conflicts_with names unknown ids {unknown}")

    answer = caller.call(
        Verification,
        VERIFY_SYSTEM,
        VERIFY_USER.format(held=describe(held), new=describe(new), question=question),
        meter,
        validate=check,
    )
    verdicts = []
    for verdict in answer.verdicts:
        assertion = by_id[verdict.assertion]
        if verdict.verdict != "contradicts" or verdict.conflicts_with is None:
            kind: VerdictKind = "supported" if verdict.verdict == "supported" else "unsupported"
            verdicts.append(Judged(assertion, kind))
            continue
        same = by_id[verdict.conflicts_with]["agent"] == assertion["agent"]
        kind = "local-conflict" if same else "cross-conflict"
        verdicts.append(Judged(assertion, kind, verdict.conflicts_with))
    return verdicts
