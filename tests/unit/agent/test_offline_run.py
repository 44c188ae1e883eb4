"""Offline runs of the compiled graph: route, append-only history, resume, and SQLite replay."""

from __future__ import annotations

import shutil
import time
import uuid
from functools import partial
from pathlib import Path

import pytest
from agent_runs import FLAG_QUESTION, NOBEL_QUESTION, Run

from graph_agent.fif_graph import build_graph
from graph_agent.replay import (
    list_checkpoints,
    resume,
    run_config,
    sqlite_checkpointer,
    stored_context,
)
from graph_agent.systems import run_system
from state.fif_context import FiFContext
from tools.errors import ConfigError

ask_checkpointed = partial(run_system, "fif")
"""`fif ask`'s checkpointed FiF run."""


def offline(index: Path, **overrides) -> FiFContext:
    return FiFContext(index_dir=str(index), **overrides)


def judged(history) -> list[tuple]:
    """Return what each step did and concluded, without its wall-clock cost."""
    return [(h["subquery"], h["strategy"], h["anchor"], h["components"], h["success"],
             h["reason"]) for h in history]  # fmt: skip


def test_an_offline_run_takes_the_fif_route_and_history_only_grows(mini_index: Path) -> None:
    run = Run(FLAG_QUESTION, offline(mini_index))
    route = run.route()
    assert route[:4] == ["planner", "orchestrator", "traverser", "evaluator"]
    assert route[-2:] == ["orchestrator", "reranker"] or route[-2:] == ["evaluator", "reranker"]
    for i, node in enumerate(route):
        if node == "traverser":
            assert route[i - 1] == "orchestrator" and route[i + 1] == "evaluator"
    history = run.state["history"]
    assert route.count("traverser") == len(history) >= 2  # the first hop fails, FiF escalates
    assert [h["step"] for h in history] == list(range(len(history)))
    assert {h["decided_by"] for h in history} == {"offline"}
    assert set(run.output) == {"ranking", "history", "subqueries", "cost", "fallbacks"}
    assert run.output["fallbacks"] == []  # the offline backend has nothing to fall back from
    assert run.output["ranking"] and len(run.output["ranking"]) <= 10
    snapshots = [s.values.get("history", []) for s in run.snapshots()]
    for earlier, later in zip(snapshots, snapshots[1:], strict=False):
        assert later[: len(earlier)] == earlier  # nothing rewritten, only appended
    decisions = [s.values.get("decisions", []) for s in run.snapshots()]
    assert all(b[: len(a)] == a for a, b in zip(decisions, decisions[1:], strict=False))


def test_an_answer_is_written_only_when_asked_for(mini_index: Path) -> None:
    run = Run(NOBEL_QUESTION, offline(mini_index, answer=True))
    assert run.route()[-2:] == ["reranker", "answerer"]
    assert run.state["answer"]
    assert "answer" not in Run(NOBEL_QUESTION, offline(mini_index)).state


def test_an_interrupted_run_resumes_to_the_same_ranking(mini_index: Path) -> None:
    context = offline(mini_index)
    whole = Run(FLAG_QUESTION, context)
    paused = Run(FLAG_QUESTION, context, interrupt_after=["evaluator"])
    stops = 0
    while paused.graph.get_state(paused.config).next:
        assert len(paused.state["history"]) == stops + 1  # paused right after a verdict
        paused.graph.invoke(None, paused.config, context=context)
        stops += 1
    assert stops == len(whole.state["history"])
    assert paused.state["ranking"] == whole.state["ranking"]
    assert judged(paused.state["history"]) == judged(whole.state["history"])


def test_a_run_resumed_long_after_its_time_budget_still_has_it(
    mini_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = offline(mini_index, max_seconds=60)
    whole = Run(FLAG_QUESTION, context)
    paused = Run(FLAG_QUESTION, context, interrupt_after=["evaluator"])
    clocks = {name: getattr(time, name) for name in ("time", "perf_counter")}
    waited = 0.0
    while paused.graph.get_state(paused.config).next:
        waited += 10 * context.max_seconds  # the run sits paused far beyond its budget
        for name, clock in clocks.items():
            monkeypatch.setattr(time, name, lambda clock=clock, shift=waited: clock() + shift)
        paused.graph.invoke(None, paused.config, context=context)
    state = paused.state
    assert waited > context.max_seconds and len(state["history"]) > 1
    assert not any("time budget" in d["reason"] for d in state["decisions"])
    assert 0 < state["cost"]["work_ms"] < context.max_seconds * 1000
    assert state["ranking"] == whole.state["ranking"]
    assert judged(state["history"]) == judged(whole.state["history"])


def test_the_time_budget_counts_working_time(mini_index: Path) -> None:
    run = Run(FLAG_QUESTION, offline(mini_index, max_seconds=1e-6))
    assert run.route() == ["planner", "reranker"]  # planning alone used the budget
    assert run.state["history"] == [] and run.state["cost"]["work_ms"] > 0


@pytest.fixture
def private_index(mini_index: Path, tmp_path: Path) -> Path:
    """A copy of the mini index, so SQLite checkpoints land in tmp_path, not the shared fixture."""
    return Path(shutil.copytree(mini_index, tmp_path / "index"))


def test_replay_lists_resumes_and_forks_a_thread(private_index: Path) -> None:
    context = offline(private_index)
    first = ask_checkpointed(FLAG_QUESTION, context, thread_id="t1")
    assert first.thread_id == "t1" and first.ranking
    assert stored_context(private_index, "t1") == context
    checkpoints = list_checkpoints(private_index, "t1")
    assert checkpoints[0].next_nodes == ("__start__",) and checkpoints[-1].next_nodes == ()
    assert [c.traversals for c in checkpoints][-1] == len(first.history)
    assert resume(private_index, "t1").ranking == first.ranking  # finished: nothing to run
    after_first_verdict = next(c for c in checkpoints if c.traversals == 1)
    fork = resume(private_index, "t1", after_first_verdict.checkpoint_id)
    assert fork.ranking == first.ranking
    assert judged(fork.history) == judged(first.history)
    assert len(list_checkpoints(private_index, "t1")) > len(checkpoints)  # the fork appended
    changed = resume(private_index, "t1", after_first_verdict.checkpoint_id, {"max_steps": 1})
    assert len(changed.history) == 1  # overrides apply to the fork only
    with pytest.raises(ConfigError, match="no thread 'nope' in .*; threads there.*: t1"):
        list_checkpoints(private_index, "nope")


def test_replay_resumes_a_thread_that_stopped_midway(private_index: Path) -> None:
    context = offline(private_index)
    thread = uuid.uuid4().hex[:8]
    with sqlite_checkpointer(private_index) as saver:
        graph = build_graph().compile(checkpointer=saver, interrupt_after=["traverser"])
        graph.invoke({"question": FLAG_QUESTION}, run_config(thread, context), context=context)
    [last] = list_checkpoints(private_index, thread)[-1:]
    assert last.next_nodes == ("evaluator",) and last.traversals == 0
    finished = resume(private_index, thread)
    assert finished.ranking == ask_checkpointed(FLAG_QUESTION, context).ranking


def test_every_step_of_a_run_records_its_working_time(mini_index: Path) -> None:
    history = Run(FLAG_QUESTION, offline(mini_index)).state["history"]
    assert history and all(step["cost"]["work_ms"] > 0 for step in history)
