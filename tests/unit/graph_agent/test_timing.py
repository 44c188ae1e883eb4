"""The node timer: each node's wall time lands in `cost` under a CostMeter key."""

from __future__ import annotations

import inspect
import time

from langgraph.runtime import Runtime

from graph_agent.timing import WORK_KEY, timed_node
from state.settings import RunSettings
from tools.cost import CostMeter


def slow(state, runtime):
    """Sleep a little and report one LLM call."""
    time.sleep(0.01)
    return {"cost": {"llm_calls": 1}, "answer": state["question"]}


def test_the_work_key_is_a_cost_meter_field() -> None:
    assert WORK_KEY in CostMeter().as_dict()  # so eval result lines carry it for every system


def test_a_timed_node_adds_its_wall_time_and_keeps_the_rest() -> None:
    node = timed_node(slow)
    update = node({"question": "q"}, Runtime(context=RunSettings()))
    assert update["answer"] == "q" and update["cost"]["llm_calls"] == 1
    assert update["cost"][WORK_KEY] >= 10.0
    assert node.__name__ == "slow" and list(inspect.signature(node).parameters) == [
        "state",
        "runtime",
    ]


def test_a_node_without_cost_gets_one() -> None:
    update = timed_node(lambda state, runtime: {})({}, Runtime(context=RunSettings()))
    assert set(update) == {"cost"} and set(update["cost"]) == {WORK_KEY}


def traverse(state, runtime):
    """Sleep a little and return a pending step, as the traverser does."""
    time.sleep(0.01)
    return {"pending_step": {"step": 0, "cost": {"vector_ms": 1.0}}, "cost": {"vector_ms": 1.0}}


def judge(state, runtime):
    """Sleep a little and return the judged step record, as the evaluator does."""
    time.sleep(0.01)
    return {"history": [{"step": 0, "cost": dict(state["pending_step"]["cost"])}]}


def test_each_step_record_carries_the_working_time_of_its_nodes() -> None:
    context = Runtime(context=RunSettings())
    pending = timed_node(traverse)({}, context)["pending_step"]
    assert pending["cost"][WORK_KEY] >= 10.0 and pending["cost"]["vector_ms"] == 1.0
    (record,) = timed_node(judge)({"pending_step": pending}, context)["history"]
    assert record["cost"][WORK_KEY] >= 20.0  # the traversal's time plus the judging's


def test_cost_dict_holds_every_field_with_times_rounded() -> None:
    meter = CostMeter(llm_calls=2, vector_ms=1.23456789)
    tally = meter.as_dict()
    assert tally["llm_calls"] == 2 and isinstance(tally["llm_calls"], int)
    assert tally["vector_ms"] == 1.234568
    assert set(tally) == set(vars(meter))
