"""Live runs over server-sent events, the event log, thread listing, replay and forks."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

PAGE = {"Sec-Fetch-Site": "same-origin"}
"""What a browser sends with the page's own requests (GET /api/ask/stream needs it)."""
QUESTION = "What colours are the stripes on the flag of the city where Marie Curie was born?"


def sse(client: TestClient, url: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Read a whole event stream: each event's id, kind and decoded data."""
    events: list[dict[str, Any]] = []
    headers = {**PAGE, **kwargs.pop("headers", {})}
    with client.stream("GET", url, headers=headers, **kwargs) as response:
        assert response.status_code == 200, response.read()
        current: dict[str, Any] = {}
        for line in response.iter_lines():
            if not line:
                if current:
                    events.append(current)
                current = {}
                continue
            field, _, value = line.partition(": ")
            current[field] = json.loads(value) if field == "data" else value
    return events


def test_ask_stream_sends_each_step_then_the_result(client: TestClient) -> None:
    events = sse(client, "/api/ask/stream", params={"question": QUESTION, "k": 3})
    kinds = [e["event"] for e in events]
    assert kinds[0] == "thread" and kinds[-2:] == ["result", "end"]
    thread_id = events[0]["data"]["thread_id"]
    assert [e["id"] for e in events] == [f"{thread_id}:{n}" for n in range(len(events))]
    steps = [e["data"] for e in events if e["event"] == "step"]
    assert [s["node"] for s in steps[:3]] == ["planner", "orchestrator", "traverser"]
    judged = [s["record"] for s in steps if "record" in s]
    assert judged and {"subquery", "strategy", "anchor", "success", "reason"} <= set(judged[0])
    assert all(s["checkpoint_id"] for s in steps)
    assert len(events[-2]["data"]["results"]) == 3


def test_a_reconnect_resumes_after_the_last_event_id(client: TestClient) -> None:
    events = sse(client, "/api/ask/stream", params={"question": QUESTION})
    thread_id = events[0]["data"]["thread_id"]
    resumed = sse(
        client,
        "/api/ask/stream",
        params={"question": QUESTION},
        headers={"Last-Event-ID": f"{thread_id}:3"},
    )
    assert [e["id"] for e in resumed] == [e["id"] for e in events[4:]]  # no second run


def test_a_started_run_streams_from_its_thread_log(client: TestClient) -> None:
    started = client.post("/api/runs", json={"question": QUESTION, "system": "dense"}).json()
    events = sse(client, started["events"])
    assert [e["event"] for e in events] == ["thread", "result", "end"]
    again = sse(client, started["events"], params={"after": 0})
    assert [e["id"] for e in again] == [e["id"] for e in events[1:]]


def test_every_run_records_its_system_on_its_checkpoints(client: TestClient) -> None:
    asked = client.post("/api/ask", json={"question": QUESTION}).json()
    started = client.post("/api/runs", json={"question": QUESTION, "system": "reagent"}).json()
    events = sse(client, started["events"])  # ReAgent runs whole (its backtracks fork), then logs
    assert events[-1]["event"] == "end" and "failed" not in events[-1]["data"]
    systems = {t["thread_id"]: t["system"] for t in client.get("/api/threads").json()["threads"]}
    assert systems[asked["thread_id"]] == "fif"
    assert systems[started["thread_id"]] == "reagent"
    rows = client.get(f"/api/threads/{started['thread_id']}/checkpoints").json()
    assert rows["system"] == "reagent" and rows["checkpoints"]


def test_threads_list_past_runs_and_replay_them_from_checkpoints(client: TestClient) -> None:
    asked = client.post("/api/ask", json={"question": QUESTION}).json()  # not streamed: no log
    threads = client.get("/api/threads").json()["threads"]
    listed = next(t for t in threads if t["thread_id"] == asked["thread_id"])
    assert listed["question"] == QUESTION and listed["checkpoints"] > 3 and listed["finished"]
    log = client.get(f"/api/threads/{asked['thread_id']}/log").json()
    kinds = [e["kind"] for e in log["events"]]
    assert kinds[0] == "thread" and kinds[-2:] == ["result", "end"] and log["done"]
    steps = [e["data"] for e in log["events"] if e["kind"] == "step"]
    assert [s["node"] for s in steps[:2]] == ["planner", "orchestrator"]
    replayed_ids = [r["component_id"] for r in log["events"][-2]["data"]["results"]]
    assert replayed_ids == [r["component_id"] for r in asked["results"]]


def test_checkpoints_and_a_fork_with_a_smaller_budget(client: TestClient) -> None:
    asked = client.post("/api/ask", json={"question": QUESTION}).json()
    thread = asked["thread_id"]
    rows = client.get(f"/api/threads/{thread}/checkpoints").json()["checkpoints"]
    orchestrating = next(r for r in rows if r["next_nodes"] == ["orchestrator"])
    fork = {"checkpoint_id": orchestrating["checkpoint_id"], "max_steps": 1}
    started = client.post(f"/api/threads/{thread}/fork", json=fork)
    assert started.status_code == 200, started.text
    events = sse(client, started.json()["events"])
    assert events[0]["data"]["fork_of"] == orchestrating["checkpoint_id"]
    records = [e["data"]["record"] for e in events if "record" in e["data"]]
    assert len(records) == 1  # the budget of one traversal held
    after = client.get(f"/api/threads/{thread}/checkpoints").json()["checkpoints"]
    parents = [r["parent_id"] for r in after]
    assert len(after) > len(rows) and parents.count(orchestrating["checkpoint_id"]) == 2


def test_a_fork_before_a_traversal_searches_an_edited_subquery(client: TestClient) -> None:
    thread = client.post("/api/ask", json={"question": QUESTION}).json()["thread_id"]
    rows = client.get(f"/api/threads/{thread}/checkpoints").json()["checkpoints"]
    before_traversal = next(r for r in rows if r["next_nodes"] == ["traverser"])
    fork = {"checkpoint_id": before_traversal["checkpoint_id"], "subquery": "flag of Warsaw"}
    events = sse(client, client.post(f"/api/threads/{thread}/fork", json=fork).json()["events"])
    searched = [e["data"]["traversal"]["subquery"] for e in events if "traversal" in e["data"]]
    assert searched[0] == "flag of Warsaw"
    planning = next(r for r in rows if r["next_nodes"] == ["planner"])
    refused = client.post(
        f"/api/threads/{thread}/fork",
        json={"checkpoint_id": planning["checkpoint_id"], "subquery": "flag of Warsaw"},
    )
    assert refused.status_code == 400 and "next node: traverser" in refused.json()["detail"]
    assert refused.json()["field"] == "subquery"  # the page shows it beside that field


def test_a_fork_budget_already_spent_is_refused_naming_its_field(client: TestClient) -> None:
    thread = client.post("/api/ask", json={"question": QUESTION}).json()["thread_id"]
    rows = client.get(f"/api/threads/{thread}/checkpoints").json()["checkpoints"]
    second = [r for r in rows if r["next_nodes"] == ["traverser"]][1]  # after one traversal
    fork = {"checkpoint_id": second["checkpoint_id"], "max_steps": 1}
    refused = client.post(f"/api/threads/{thread}/fork", json=fork)
    assert refused.status_code == 400, refused.text
    assert refused.json()["field"] == "max_steps" and "at least 2" in refused.json()["detail"]
    fork["max_steps"] = 0  # out of bounds: pydantic's 422 names the field in `loc`
    invalid = client.post(f"/api/threads/{thread}/fork", json=fork).json()["detail"]
    assert invalid[0]["loc"][-1] == "max_steps"


def test_every_system_logs_named_steps_with_rungs_or_found_components(client: TestClient) -> None:
    asked = client.post("/api/runs", json={"question": QUESTION, "system": "fif"}).json()
    steps = [e["data"] for e in sse(client, asked["events"]) if e["event"] == "step"]
    rungs = [s["record"]["rung"] for s in steps if "record" in s]
    assert rungs == sorted(rungs) and rungs[0] < rungs[-1]  # a failing subquery escalates
    started = client.post("/api/runs", json={"question": QUESTION, "system": "ircot"}).json()
    steps = [e["data"] for e in sse(client, started["events"]) if e["event"] == "step"]
    assert {"retriever", "reasoner"} <= {s["node"] for s in steps}
    first = steps[0]
    assert first["subquery"] == QUESTION and first["components"] and first["document_ids"]


def test_fork_and_replay_errors_are_4xx_with_reasons(client: TestClient) -> None:
    thread = client.post("/api/ask", json={"question": QUESTION}).json()["thread_id"]
    missing = client.post(f"/api/threads/{thread}/fork", json={"checkpoint_id": "1f0-abc"})
    assert missing.status_code == 404 and "has no checkpoint '1f0-abc'" in missing.text
    assert (
        client.post(f"/api/threads/{thread}/fork", json={"checkpoint_id": "x;y"}).status_code == 422
    )
    assert client.get("/api/threads/nope123/log").status_code == 404
    assert client.get("/api/threads/a.b/log").status_code == 422
    assert client.get("/api/threads/nope123/checkpoints").status_code == 404


def test_a_thread_id_holds_one_run(client: TestClient) -> None:
    body = {"question": QUESTION, "thread_id": "busy-thread"}
    assert client.post("/api/runs", json=body).status_code == 200
    second = client.post("/api/runs", json=body)  # running, or done with its checkpoints
    assert second.status_code == 409 and "already holds a run" in second.json()["detail"]
    deadline = time.monotonic() + 30
    while client.get("/api/threads/busy-thread/log").json()["done"] is False:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    again = client.post("/api/ask", json=body)
    assert again.status_code == 409 and "fork it" in again.json()["detail"]
    fresh = client.post("/api/ask", json={**body, "thread_id": "fresh-thread"})
    assert fresh.status_code == 200 and fresh.json()["thread_id"] == "fresh-thread"


def test_a_run_failing_in_its_first_node_is_not_listed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("FIF_BASE_URL", raising=False)
    body = {"question": QUESTION, "backend": "openai", "thread_id": "no-key-thread"}
    events = sse(client, client.post("/api/runs", json=body).json()["events"])
    assert [e["event"] for e in events] == ["thread", "error", "end"]
    assert "OPENAI_API_KEY" in events[1]["data"]["message"]
    listed = [t["thread_id"] for t in client.get("/api/threads").json()["threads"]]
    assert "no-key-thread" not in listed
