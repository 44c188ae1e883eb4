"""The event log and the step summaries, without a server."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from serve.events import EventLogs, parse_event_id
from serve.runs import RunRequest, start_run
from serve.steps import step_summary
from state.settings import RunSettings
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE


def test_events_are_numbered_per_thread_and_read_after_an_id() -> None:
    logs = EventLogs()
    logs.open("t1")
    for kind in ("thread", "step", "step"):
        logs.append("t1", kind, {})
    logs.append("t2", "thread", {})
    events, done = logs.after("t1", 0)
    assert [e.event_id for e in events] == ["t1:1", "t1:2"] and not done
    logs.append("t1", "end", {})
    assert logs.after("t1", 2) == (logs.after("t1", -1)[0][3:], True)
    assert logs.after("unknown", -1) == ([], True)


def test_a_reader_waiting_for_an_event_wakes_when_it_arrives() -> None:
    logs = EventLogs()
    logs.open("t")
    threading.Timer(0.05, lambda: logs.append("t", "end", {})).start()
    events, done = logs.after("t", -1, wait_s=5)
    assert [e.kind for e in events] == ["end"] and done


def test_the_oldest_logs_are_dropped_past_the_limit() -> None:
    logs = EventLogs(max_threads=2)
    for thread in ("a", "b", "c"):
        logs.open(thread)
    assert not logs.has("a") and logs.has("b") and logs.has("c")


@pytest.mark.parametrize(
    ("event_id", "parsed"),
    [
        ("abc:3", ("abc", 3)),
        ("a:b:12", ("a:b", 12)),
        ("abc", None),
        (":3", None),
        ("x:-1", None),
        (None, None),
    ],
)
def test_event_ids_name_the_thread_and_the_position(
    event_id: str | None, parsed: tuple[str, int] | None
) -> None:
    assert parse_event_id(event_id) == parsed


def test_step_summaries_keep_what_the_trace_shows() -> None:
    strategy = {"doc_mode": "vector", "comp_mode": "vector", "granularity": "document"}
    record = {
        "step": 0,
        "subquery": "who?",
        "strategy": strategy,
        "anchor": None,
        "success": False,
        "answerable": False,
        "reason": "no evidence",
        "documents": [{"id": "d"}],
        "components": [{"id": f"d::p{n}"} for n in range(9)],
    }
    summary = step_summary("evaluator", {"history": [record], "cost": {"work_ms": 1.5}})
    assert summary["record"]["reason"] == "no evidence" and summary["record"]["success"] is False
    assert summary["record"]["components"] == [f"d::p{n}" for n in range(5)]
    assert summary["record"]["documents"] == 1 and summary["cost"] == {"work_ms": 1.5}
    action = {
        "kind": "search",
        "subquery": "who?",
        "strategy": strategy,
        "anchor": 2,
        "reason": "backtrack",
        "decided_by": "offline",
    }
    assert step_summary("orchestrator", {"decisions": [action]})["decision"]["anchor"] == 2
    assert step_summary("reranker", None) == {"node": "reranker", "cost": {}}


def test_a_failing_run_ends_its_log_with_the_reason(tmp_path: Path) -> None:
    logs = EventLogs()
    missing = tmp_path / "no-index"
    request = RunRequest("t1", "fif", "Who?", RunSettings(index_dir=str(missing)))
    start_run(logs, LayeredGraph(), request).join(timeout=60)
    events, done = logs.after("t1", -1)
    assert done and [e.kind for e in events] == ["thread", "error", "end"]
    assert str(missing) in events[1].data["message"] and events[2].data == {"failed": True}


def test_a_traversal_names_the_links_it_followed(mini_index: Path) -> None:
    graph = LayeredGraph.load(mini_index / GRAPH_FILE)
    hits = [
        {"id": "warsaw::p1", "doc_id": "warsaw", "via": "marie_curie::p0::s0"},
        {"id": "warsaw::i0", "doc_id": "warsaw", "via": "marie_curie::p0::s0"},
        {"id": "radium::p0", "doc_id": "radium", "via": ""},
    ]
    record = {"step": 1, "documents": [{"id": "warsaw", "doc_id": "warsaw"}], "components": hits}
    summary = step_summary("evaluator", {"history": [record]}, graph)["record"]
    assert summary["links"] == [["marie_curie", "warsaw"]]
    assert summary["document_ids"] == ["warsaw"]
    assert step_summary("evaluator", {"history": [record]})["record"]["links"] == []


def test_a_running_thread_cannot_be_opened_again() -> None:
    logs = EventLogs()
    assert logs.open("t")
    logs.append("t", "thread", {})
    assert not logs.open("t") and len(logs.after("t", -1)[0]) == 1
    logs.append("t", "end", {})
    assert logs.open("t") and logs.after("t", -1) == ([], False)
