"""The node timer: each node's wall time lands in `cost` under a CostMeter key."""

from __future__ import annotations

import inspect
import time

from langgraph.runtime import Runtime

from graph_agent.timing import WORK_KEY, timed_node
from state.context import Context
from tools.cost import CostMeter


def slow(state, runtime):
    """Sleep a little and report one LLM call."""
    time.sleep(0.01)
    return {"cost": {"llm_calls": 1}, "answer": state["question"]}


def test_the_work_key_is_a_cost_meter_field() -> None:
    assert WORK_KEY in CostMeter().as_dict()  # so eval result lines carry it for every system


def test_a_timed_node_adds_its_wall_time_and_keeps_the_rest() -> None:
    node = timed_node(slow)
    update = node({"question": "q"}, Runtime(context=Context()))
    assert update["answer"] == "q" and update["cost"]["llm_calls"] == 1
    assert update["cost"][WORK_KEY] >= 10.0
    assert node.__name__ == "slow" and list(inspect.signature(node).parameters) == [
        "state",
        "runtime",
    ]


def test_a_node_without_cost_gets_one() -> None:
    update = timed_node(lambda state, runtime: {})({}, Runtime(context=Context()))
    assert set(update) == {"cost"} and set(update["cost"]) == {WORK_KEY}
