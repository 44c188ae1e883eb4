"""Step summaries the trace draws: FiF rungs, whole-run systems' node records, eval traces."""

from __future__ import annotations

import pytest

from serve.eval_traces import trace_step
from serve.steps import record_summary, rung_of_strategy, step_summary

CHEAP = {"doc_mode": "neighbors", "comp_mode": "vector", "granularity": "document"}
FINER = {"doc_mode": "vector", "comp_mode": "vector", "granularity": "component"}


@pytest.mark.parametrize(
    ("strategy", "rung"),
    [
        (CHEAP, 0),
        (FINER, 2),
        ({"doc_mode": "llm", "comp_mode": "llm", "granularity": "subcomponent"}, 5),
        ({"doc_mode": "vector"}, None),  # not a whole strategy: no rung
        (None, None),
    ],
)
def test_a_strategy_has_its_rung_on_the_ladder(strategy: object, rung: int | None) -> None:
    assert rung_of_strategy(strategy) == rung


def test_a_fif_decision_and_record_carry_their_rung() -> None:
    decision = {"kind": "search", "subquery": "q", "strategy": FINER, "reason": "escalate"}
    record = {"step": 1, "subquery": "q", "strategy": FINER, "success": False}
    summary = step_summary("evaluator", {"decisions": [decision], "history": [record]})
    assert summary["decision"]["rung"] == 2 and summary["record"]["rung"] == 2


@pytest.mark.parametrize(
    ("record", "found"),
    [
        ({"node": "retriever", "query": "q", "retrieved": ["a::p0", "b::p1"]}, ["a::p0", "b::p1"]),
        ({"node": "traverser", "detail": {"seeds": ["c::p0"]}}, ["c::p0"]),
        ({"node": "verifier", "detail": {"verdicts": {"x": "supported"}}}, []),
    ],
)
def test_a_node_record_shows_its_node_query_and_finds(
    record: dict[str, object], found: list[str]
) -> None:
    summary = record_summary({**record, "reason": "why", "decided_by": "offline"})
    assert summary["node"] == record["node"] and summary["reason"] == "why"
    assert summary["subquery"] == record.get("query") and summary["components"] == found
    assert summary["document_ids"] == []  # without the graph no documents are named


def test_an_eval_trace_step_is_a_judged_step_or_a_node_record() -> None:
    kept = {"step": 0, "subquery": "q", "strategy": CHEAP, "success": True, "documents": ["a"]}
    judged = trace_step(kept, None)
    assert judged["record"]["rung"] == 0 and judged["record"]["document_ids"] == ["a"]
    assert trace_step({"node": "reasoner", "reason": "r"}, None)["node"] == "reasoner"
