"""Table tests of the routing rules in nodes/fif/rules.py: one row per case of the architecture."""

from __future__ import annotations

import pytest
from agent_records import LLM_LLM, VECTOR, replan_decision, search_decision, step, subquery

from nodes.fif.rules import (
    FIXED_GRANULARITY,
    LADDER,
    MAX_REPLANS,
    allowed,
    budget_exhausted,
    must_stop,
    next_rung,
    repeats_failure,
    should_backtrack,
    should_replan,
)
from state.fif_context import FiFContext

CTX = FiFContext()
PATIENT = FiFContext(replan_after_failed_anchors=3)

SQ = "find target 0"
NEIGHBORS, SUB_LLM = LADDER[0], LADDER[4]


def test_the_ladder_climbs_in_cost_order() -> None:
    doc = {"neighbors": 0, "vector": 1, "llm": 2}
    comp = {"vector": 0, "llm": 1}
    gran = {"document": 0, "component": 1, "subcomponent": 2}
    keys = [(doc[r["doc_mode"]], comp[r["comp_mode"]], gran[r["granularity"]]) for r in LADDER]
    assert all(a <= b for a, b in zip(keys, keys[1:], strict=False))
    assert len(set(keys)) == len(LADDER) and LADDER[-1] == LLM_LLM


@pytest.mark.parametrize(
    ("history", "anchor", "context", "start", "expected"),
    [
        ([], None, CTX, 0, LADDER[1]),  # neighbors needs an anchor
        (
            [step(0, 1, success=True)],
            0,
            CTX,
            0,
            LADDER[0],
        ),  # with one, start at the bottom
        ([step(0)], None, CTX, 2, LADDER[2]),  # one rung up after a failure
        ([step(0), step(1, rung=2)], None, CTX, 1, LADDER[3]),  # tried rungs are skipped
        ([step(0, rung=2, success=True)], None, CTX, 2, LADDER[3]),  # successes too
        ([step(0, anchor=None)], 3, CTX, 1, LADDER[2]),  # a vector hop ignores anchors
        ([step(i, rung=i) for i in range(1, 6)], None, CTX, 1, None),  # ladder used up
        ([], None, FiFContext(no_llm_traversal=True), 4, None),
        ([step(0)], None, FiFContext(no_llm_traversal=True), 3, LADDER[3]),
        ([step(0, success=True)], 0, FiFContext(no_global_hop=True), 1, None),
        ([step(0, success=True)], 0, FiFContext(no_global_hop=True), 0, LADDER[0]),
        ([], None, FiFContext(no_global_hop=True), 0, LADDER[1]),  # the first hop may be global
        (
            [],
            None,
            FiFContext(fixed_granularity=True),
            0,
            {**LADDER[1], "granularity": FIXED_GRANULARITY},
        ),
        (
            [step(0, subquery=SQ, strategy={**LADDER[1], "granularity": FIXED_GRANULARITY})],
            None,
            FiFContext(fixed_granularity=True),
            1,
            {**LADDER[4], "granularity": FIXED_GRANULARITY},  # rungs 1–3 collapse into one
        ),
    ],
    ids=[
        "first-hop-global",
        "anchor-allows-neighbors",
        "escalate-one",
        "skip-tried",
        "skip-succeeded",
        "anchor-irrelevant-to-vector",
        "exhausted",
        "no-llm-traversal-none-left",
        "no-llm-traversal-vector-ok",
        "no-global-hop-after-first",
        "no-global-hop-neighbors-ok",
        "no-global-hop-first-step",
        "fixed-granularity",
        "fixed-granularity-collapses",
    ],
)
def test_next_rung(history, anchor, context, start, expected) -> None:
    assert next_rung(history, SQ, anchor, context, start) == expected


@pytest.mark.parametrize(
    ("strategy", "context", "has_anchor", "first_step", "expected"),
    [
        (NEIGHBORS, CTX, False, False, False),
        (NEIGHBORS, CTX, True, False, True),
        (LLM_LLM, CTX, False, False, True),
        (LLM_LLM, FiFContext(no_llm_traversal=True), False, False, False),
        (SUB_LLM, FiFContext(no_llm_traversal=True), False, False, False),
        (VECTOR, FiFContext(no_llm_traversal=True), False, False, True),
        (VECTOR, FiFContext(no_global_hop=True), False, False, False),
        (VECTOR, FiFContext(no_global_hop=True), False, True, True),
        (NEIGHBORS, FiFContext(no_global_hop=True), True, False, True),
        (VECTOR, FiFContext(fixed_granularity=True), False, False, True),
        (LLM_LLM, FiFContext(no_backtracking=True), False, False, True),
        (LLM_LLM, FiFContext(no_planner=True), False, False, True),
    ],
    ids=[
        "neighbors-without-anchor",
        "neighbors-with-anchor",
        "llm-allowed",
        "no-llm-traversal-doc",
        "no-llm-traversal-comp",
        "no-llm-traversal-vector",
        "no-global-hop-later",
        "no-global-hop-first",
        "no-global-hop-neighbors",
        "fixed-granularity",
        "no-backtracking",
        "no-planner",
    ],
)
def test_allowed(strategy, context, has_anchor, first_step, expected) -> None:
    assert allowed(strategy, context, has_anchor, first_step) is expected


@pytest.mark.parametrize(
    ("history", "subquery_text", "anchor", "strategy", "expected"),
    [
        ([step(0, subquery=SQ)], SQ, None, VECTOR, True),
        ([step(0, subquery=SQ, success=True)], SQ, None, VECTOR, False),
        ([step(0, subquery=SQ)], "Target 0, find", None, VECTOR, True),  # same intent
        ([step(0, subquery=SQ)], "find target 1", None, VECTOR, False),
        ([step(0, subquery=SQ)], SQ, None, LADDER[2], False),
        ([step(0, subquery=SQ)], SQ, 4, VECTOR, True),  # a vector hop's anchor is moot
        ([step(1, subquery=SQ, rung=0, anchor=0)], SQ, 0, NEIGHBORS, True),
        ([step(1, subquery=SQ, rung=0, anchor=0)], SQ, 2, NEIGHBORS, False),
        ([], SQ, None, VECTOR, False),
    ],
    ids=[
        "same-route-failed",
        "same-route-succeeded",
        "same-intent-other-wording",
        "other-intent",
        "other-granularity",
        "vector-other-anchor",
        "neighbors-same-anchor",
        "neighbors-other-anchor",
        "empty-history",
    ],
)
def test_repeats_failure(history, subquery_text, anchor, strategy, expected) -> None:
    assert repeats_failure(history, subquery_text, anchor, strategy) is expected


@pytest.mark.parametrize(
    ("history", "context", "expected"),
    [
        ([], CTX, False),
        ([step(0, success=True)], CTX, False),
        ([step(0)], CTX, False),
        ([step(0), step(1, rung=2)], CTX, True),
        ([step(0), step(1, rung=2, success=True), step(2, rung=3)], CTX, False),
        ([step(0, rung=5)], CTX, True),  # a failed LLM/LLM hop
        ([step(0, rung=4)], CTX, False),  # LLM components only
        ([step(0), step(1, rung=2)], FiFContext(no_backtracking=True), False),
        ([step(0, rung=5)], FiFContext(no_backtracking=True), False),
        ([step(0), step(1, rung=2)], FiFContext(backtrack_after_failures=3), False),
        ([step(0), step(1, 1), step(2)], CTX, True),  # other subqueries don't interrupt
        ([step(0, 1), step(1, 1, rung=2)], CTX, False),  # failures of another subquery
    ],
    ids=[
        "no-steps",
        "success",
        "one-failure",
        "two-consecutive",
        "success-between",
        "llm-llm-failed",
        "llm-components-failed",
        "no-backtracking",
        "no-backtracking-llm-llm",
        "threshold-3",
        "interleaved",
        "other-subquery",
    ],
)
def test_should_backtrack(history, context, expected) -> None:
    assert should_backtrack({"history": history}, context, 0) is expected


@pytest.mark.parametrize(
    ("history", "decisions", "context", "expected"),
    [
        ([step(0), step(1, rung=0, anchor=0)], [], CTX, True),
        ([step(0), step(1, rung=2)], [], CTX, False),  # one anchor only
        ([step(0, success=True), step(1, anchor=None), step(2, rung=0, anchor=0)], [], CTX,
         True),
        ([step(0), step(1, rung=0, anchor=0)], [], FiFContext(no_planner=True), False),
        ([step(0), step(1, rung=0, anchor=0)], [replan_decision()] * MAX_REPLANS, CTX,
         False),
        (
            [step(0), step(1, rung=0, anchor=0), step(2, rung=2)],
            [search_decision(), search_decision(), replan_decision(), search_decision()],
            CTX,
            False,  # failures before the last replan are forgiven
        ),
        ([step(0), step(1, rung=0, anchor=0)], [], PATIENT, False),
        ([step(0, 1), step(1, 1, rung=0, anchor=0)], [], CTX, False),  # other subquery
    ],
    ids=[
        "two-anchors",
        "one-anchor",
        "success-then-two-anchors",
        "no-planner",
        "max-replans",
        "since-last-replan",
        "threshold-3",
        "other-subquery",
    ],
)  # fmt: skip
def test_should_replan(history, decisions, context, expected) -> None:
    state = {"history": history, "decisions": decisions}
    assert should_replan(state, context, 0) is expected


OPENAI = {"backend": "openai"}


@pytest.mark.parametrize(
    ("state", "context", "expected"),
    [
        ({}, CTX, None),
        ({"history": [step(i) for i in range(3)]}, FiFContext(max_steps=3), "step budget (3) used"),
        ({"history": [step(i) for i in range(2)]}, FiFContext(max_steps=3), None),
        ({"cost": {"llm_calls": 5}}, FiFContext(max_llm_calls=5, **OPENAI), "LLM call budget (5)"),
        ({"cost": {"llm_calls": 4}}, FiFContext(max_llm_calls=5, **OPENAI), None),
        ({"cost": {"llm_calls": 9}}, FiFContext(max_llm_calls=5), None),  # offline makes no calls
        (
            {"cost": {"input_tokens": 60, "output_tokens": 40}},
            FiFContext(max_tokens=100, **OPENAI),
            "token budget (100) used",
        ),
        ({"cost": {"input_tokens": 60}}, FiFContext(max_tokens=100, **OPENAI), None),
        ({"cost": {"work_ms": 50_000.0}}, FiFContext(max_seconds=50), "time budget (50s) used"),
        ({"cost": {"work_ms": 49_999.0}}, FiFContext(max_seconds=50), None),
        ({"cost": {"work_ms": 50_000.0}}, FiFContext(max_seconds=60), None),
        # a run started long ago (a resumed checkpoint) with little work done: the clock since
        # started_at must not count (a truthy time: 0.0 would pass a clock check that skips it)
        ({"started_at": 1.7e9, "cost": {"work_ms": 10_000.0}}, FiFContext(max_seconds=50), None),
    ],
    ids=[
        "fresh",
        "steps-used",
        "steps-left",
        "llm-calls-used",
        "llm-calls-left",
        "llm-calls-offline",
        "tokens-used",
        "tokens-left",
        "seconds-used",
        "seconds-left",
        "seconds-left-larger-budget",
        "clock-start-ignored",
    ],
)
def test_budget_exhausted(state, context, expected) -> None:
    reason = budget_exhausted(state, context)
    if expected is None:
        assert reason is None
    else:
        assert reason is not None and reason.startswith(expected)


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        ({}, False),  # nothing planned yet
        ({"subqueries": [subquery(0)]}, False),
        ({"subqueries": [subquery(0, "answerable")]}, True),
        ({"subqueries": [subquery(0, "answerable"), subquery(1, "not answerable")]}, False),
        (
            {"subqueries": [subquery(0, "not answerable"),
                            subquery(1, "answerable", origin="rewrite", parent=0)]},
            True,  # the rewrite answered what its parent asked
        ),
        ({"subqueries": [subquery(0)], "history": [step(i) for i in range(8)]}, True),
    ],
    ids=["unplanned", "open", "all-answerable", "one-open", "rewrite-answers", "budget"],
)  # fmt: skip
def test_must_stop(state, expected) -> None:
    assert must_stop(state, CTX) is expected
