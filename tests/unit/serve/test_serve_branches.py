"""Forks as branches: the tree of a thread's checkpoints, each branch's own log and result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_serve_threads import QUESTION, sse

from serve.branches import branches


@dataclass
class Snapshot:
    """The parts of a LangGraph StateSnapshot the branch tree reads."""

    checkpoint_id: str
    parent: str | None
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"checkpoint_id": self.checkpoint_id}}

    @property
    def parent_config(self) -> dict[str, Any] | None:
        return {"configurable": {"checkpoint_id": self.parent}} if self.parent else None


def ids(path: tuple[Any, ...]) -> list[str]:
    return [s.checkpoint_id for s in path]


def test_each_leaf_is_a_branch_numbered_in_the_order_it_left() -> None:
    #  a → b → c → d        (the original run)
    #       ╰→ e → f        (a fork re-running the step after b, made first)
    #           ╰→ g        (a fork of that fork, made last)
    parents = {"a": None, "b": "a", "c": "b", "d": "c", "e": "b", "f": "e", "g": "e"}
    history = [Snapshot(cid, parent) for cid, parent in reversed(parents.items())]
    found = branches(history)
    assert [ids(b.path) for b in found] == [
        ["a", "b", "c", "d"],
        ["a", "b", "e", "f"],
        ["a", "b", "e", "g"],
    ]
    assert [(b.fork_of, b.fork_checkpoint) for b in found] == [(None, None), (0, "b"), (1, "e")]
    assert [b.head_id for b in found] == ["d", "f", "g"]


def test_a_thread_without_forks_is_one_branch_and_no_history_none() -> None:
    found = branches([Snapshot("b", "a"), Snapshot("a", None)])
    assert [ids(b.path) for b in found] == [["a", "b"]] and found[0].fork_of is None
    assert branches([]) == []


@pytest.fixture(scope="module")
def forked(client: TestClient) -> dict[str, Any]:
    """Run a thread with an answer, then fork it from its second traversal with budget 1."""
    asked = client.post("/api/ask", json={"question": QUESTION, "answer": True}).json()
    thread = asked["thread_id"]
    before = client.get(f"/api/threads/{thread}/log").json()["events"]
    steps = [e["data"] for e in before if e["kind"] == "step"]
    middle = [s for s in steps if s["node"] == "traverser"][1]
    body = {"checkpoint_id": middle["checkpoint_id"], "max_steps": 2}
    started = client.post(f"/api/threads/{thread}/fork", json=body)
    assert started.status_code == 200, started.text
    fork_events = sse(client, started.json()["events"])
    return {"thread": thread, "asked": asked, "before": before, "fork": fork_events, "at": middle}


def test_a_fork_result_is_its_own_head_ranking_and_answer(forked: dict[str, Any]) -> None:
    first, result = forked["fork"][0]["data"], forked["fork"][-2]["data"]
    assert first["fork_of"] == forked["at"]["checkpoint_id"] and first["fork_branch"] == 0
    assert first["fork_step"] == forked["before"].index(
        next(e for e in forked["before"] if e["data"] == forked["at"])
    )  # events: the thread event, then step 1, step 2, …: the event index is the step number
    assert result["results"] and result["answer"], result
    assert result["head"] != forked["at"]["checkpoint_id"]


def test_the_original_keeps_every_event_and_both_branches_list(
    client: TestClient, forked: dict[str, Any]
) -> None:
    thread = forked["thread"]
    after = client.get(f"/api/threads/{thread}/log").json()["events"]
    assert [e["data"] for e in after] == [e["data"] for e in forked["before"]]
    rows = client.get(f"/api/threads/{thread}/branches").json()["branches"]
    assert [r["branch"] for r in rows] == [0, 1]
    assert rows[1]["fork_branch"] == 0 and rows[1]["fork_of"] == forked["at"]["checkpoint_id"]
    assert rows[0]["answer"] == forked["asked"]["answer"] and rows[1]["answer"]
    assert rows[0]["steps"] > rows[1]["steps"] - rows[1]["fork_step"] + 1


def test_both_branches_survive_a_restart(
    make_client: Callable[..., TestClient], forked: dict[str, Any]
) -> None:
    restarted = make_client()  # a new app: no event log in memory, only checkpoints
    thread = forked["thread"]
    rows = restarted.get(f"/api/threads/{thread}/branches").json()["branches"]
    assert [r["branch"] for r in rows] == [0, 1]
    original = restarted.get(f"/api/threads/{thread}/log").json()["events"]
    assert [e["kind"] for e in original] == [e["kind"] for e in forked["before"]]
    fork = restarted.get(f"/api/threads/{thread}/log", params={"branch": 1}).json()["events"]
    steps = [e["data"] for e in fork if e["kind"] == "step"]
    assert fork[0]["data"]["fork_step"] == forked["fork"][0]["data"]["fork_step"]
    live = [e["data"]["results"] for e in forked["fork"] if e["event"] == "result"][0]
    assert fork[-2]["data"]["results"] == live and steps
    missing = restarted.get(f"/api/threads/{thread}/log", params={"branch": 7})
    assert missing.status_code == 404 and "branches 0–1" in missing.json()["detail"]


def test_a_strategy_edit_is_validated_and_taken(client: TestClient, forked: dict[str, Any]) -> None:
    thread, at = forked["thread"], forked["at"]["checkpoint_id"]
    bad = {"checkpoint_id": at, "strategy": {"doc_mode": "teleport", "comp_mode": "vector"}}
    refused = client.post(f"/api/threads/{thread}/fork", json=bad)
    assert refused.status_code == 422 and "doc_mode" in refused.text
    steps = [e["data"] for e in forked["before"] if e["kind"] == "step"]
    strategy = {"doc_mode": "vector", "comp_mode": "vector", "granularity": "component"}
    # a traverser row ran from the checkpoint the orchestrator's decision left
    before_traversal = next(s["checkpoint_id"] for s in steps if s["node"] == "traverser")
    body = {"checkpoint_id": before_traversal, "strategy": strategy}
    events = sse(client, client.post(f"/api/threads/{thread}/fork", json=body).json()["events"])
    taken = next(e["data"]["traversal"] for e in events if "traversal" in e["data"])
    assert taken["strategy"] == strategy
    assert events[0]["data"]["edited"] == {"strategy": strategy}
    rows = client.get(f"/api/threads/{thread}/branches").json()["branches"]
    assert rows[-1]["edited"] == {"strategy": strategy}  # only what the user changed
