"""Replay keeps the run's FiFContext, names valid ids for unknown ones, and guards used threads.

A run that fails before its first node leaves no thread; one that fails later keeps its own.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypedDict

import pytest
from agent_runs import FLAG_QUESTION, NOBEL_QUESTION
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph

from graph_agent.binding import with_checkpointer
from graph_agent.lilac_graph import graph as lilac_graph
from graph_agent.replay import (
    list_checkpoints,
    resume,
    sqlite_checkpointer,
    stored_context,
    thread_system_of,
)
from graph_agent.systems import run_system
from graph_agent.threads import discard_unstarted, thread_ids
from state.fif_context import FiFContext
from tools.errors import ConfigError, ContextError

ask_checkpointed = partial(run_system, "fif")
"""`fif ask`'s checkpointed FiF run."""


@pytest.fixture
def index(mini_index: Path, tmp_path: Path) -> Path:
    """A copy of the mini index, so SQLite checkpoints land in tmp_path, not the shared fixture."""
    return Path(shutil.copytree(mini_index, tmp_path / "index"))


def first_checkpoint_after_planning(index: Path, thread: str) -> str:
    return next(c.checkpoint_id for c in list_checkpoints(index, thread) if c.step == 1)


def test_resume_and_fork_keep_the_stored_context_unless_overridden(index: Path) -> None:
    context = FiFContext(index_dir=str(index), max_steps=1, top_k=3)
    first = ask_checkpointed(FLAG_QUESTION, context, "t1")
    assert len(first.history) == 1 and len(first.ranking) == 3
    assert stored_context(index, "t1") == context
    planned = first_checkpoint_after_planning(index, "t1")
    fork = resume(index, "t1", planned)  # default settings would take 8 steps and rank 10
    assert len(fork.history) == 1 and len(fork.ranking) == 3
    overridden = resume(index, "t1", planned, {"top_k": 5, "max_steps": 2})
    assert len(overridden.ranking) == 5 and len(overridden.history) == 2
    assert stored_context(index, "t1").top_k == 5  # the fork's checkpoints record its own


def test_the_stored_index_is_the_one_replay_is_pointed_at(index: Path, tmp_path: Path) -> None:
    ask_checkpointed(FLAG_QUESTION, FiFContext(index_dir=str(index), max_steps=1), "t1")
    moved = Path(shutil.move(index, tmp_path / "moved"))
    assert stored_context(moved, "t1").index_dir == str(moved)


def test_an_unknown_checkpoint_id_lists_the_thread_s_checkpoints(index: Path) -> None:
    ask_checkpointed(FLAG_QUESTION, FiFContext(index_dir=str(index), max_steps=1), "t1")
    known = [c.checkpoint_id for c in list_checkpoints(index, "t1")]
    with pytest.raises(ConfigError) as raised:
        resume(index, "t1", "no-such-checkpoint")
    message = str(raised.value)
    assert "thread 't1' has no checkpoint 'no-such-checkpoint'" in message
    assert known[-1] in message and "\n" not in message


def test_an_unknown_thread_lists_the_threads_newest_first(index: Path) -> None:
    for thread in ("older", "newer"):
        ask_checkpointed(FLAG_QUESTION, FiFContext(index_dir=str(index), max_steps=1), thread)
    with sqlite_checkpointer(index) as saver:
        assert thread_ids(saver) == ["newer", "older"]
    for attempt in (lambda: resume(index, "nope"), lambda: stored_context(index, "nope")):
        with pytest.raises(ConfigError, match="no thread 'nope' in .*: newer, older$"):
            attempt()


def test_a_new_question_on_a_used_thread_is_refused_unless_continued(index: Path) -> None:
    context = FiFContext(index_dir=str(index), max_steps=2)
    first = ask_checkpointed(FLAG_QUESTION, context, "t1")
    with pytest.raises(ConfigError, match=r"thread 't1' already holds a run \(fif: .*--continue"):
        ask_checkpointed(NOBEL_QUESTION, context, "t1")
    assert list_checkpoints(index, "t1")[-1].traversals == len(first.history)  # untouched
    follow_up = ask_checkpointed(NOBEL_QUESTION, context, "t1", continue_thread=True)
    assert follow_up.history[: len(first.history)] == first.history  # the thread carried on


def test_every_checkpointed_system_guards_its_threads(index: Path) -> None:
    context = FiFContext(index_dir=str(index), top_k=3)
    lilac = partial(run_system, "lilac")
    lilac(FLAG_QUESTION, context, "L")
    with pytest.raises(ConfigError, match=r"thread 'L' already holds a run \(lilac: "):
        lilac(NOBEL_QUESTION, context, "L")
    with pytest.raises(ConfigError, match=r"thread 'L' already holds a run \(lilac: "):
        partial(run_system, "fif")(NOBEL_QUESTION, context, "L")
    assert resume(index, "L").finished  # replay knows the thread is LILaC's, and done
    with sqlite_checkpointer(index) as saver:  # an edit of the state records no graph
        with_checkpointer(lilac_graph, saver).update_state(
            {"configurable": {"thread_id": "L"}}, {"ranking": []}
        )
    assert thread_system_of(index, "L") == "lilac"  # read from the run's own checkpoints
    assert partial(run_system, "dense")(NOBEL_QUESTION, context, "L").ranking  # no thread state


def test_the_cli_reports_replay_and_thread_errors_in_one_line(index: Path, run_fif_main) -> None:
    ask = ("ask", FLAG_QUESTION, "--index", str(index), "--thread", "t1", "--max-steps", "1")
    assert run_fif_main(*ask)[0] == 0
    code, _, err = run_fif_main(*ask)
    assert code == 2 and "already holds a run" in err and "Traceback" not in err
    assert run_fif_main(*ask, "--continue")[0] == 0
    code, _, err = run_fif_main("replay", "t1", "--index", str(index), "--fork", "bogus")
    assert code == 2 and "has no checkpoint 'bogus'" in err and "Traceback" not in err
    code, _, err = run_fif_main("replay", "nope", "--index", str(index), "--resume")
    assert code == 2 and "no thread 'nope'" in err and "t1" in err
    code, _, err = run_fif_main("ask", FLAG_QUESTION, "--index", str(index), "--continue")
    assert code == 2 and "--thread" in err


def test_a_run_that_fails_before_its_first_node_leaves_no_thread(index: Path, run_fif_main) -> None:
    ask_checkpointed(FLAG_QUESTION, FiFContext(index_dir=str(index), max_steps=1), "kept")
    unknown_doc = FiFContext(index_dir=str(index), doc_scope=("no_such_doc",))
    with pytest.raises(ContextError, match="context.doc_scope"):
        ask_checkpointed(FLAG_QUESTION, unknown_doc, "failed")
    with pytest.raises(ContextError, match="context.doc_scope"):
        partial(run_system, "lilac")(FLAG_QUESTION, unknown_doc, "failed-lilac")
    code, _, err = run_fif_main("ask", FLAG_QUESTION, "--index", str(index), "--doc", "nope")
    assert code == 2 and "context.doc_scope" in err
    with sqlite_checkpointer(index) as saver:
        assert thread_ids(saver) == ["kept"]
    with pytest.raises(ContextError):  # a continued thread keeps its earlier run
        ask_checkpointed(FLAG_QUESTION, unknown_doc, "kept", continue_thread=True)
    assert list_checkpoints(index, "kept")


class Steps(TypedDict):
    done: list[str]


def two_steps(fail_in: str) -> StateGraph[Steps]:
    """A two-node graph whose node `fail_in` raises."""

    def step(name: str) -> Callable[[Steps], Steps]:
        def run(state: Steps) -> Steps:
            if name == fail_in:
                raise RuntimeError(f"{name} failed")
            return {"done": [*state["done"], name]}

        return run

    builder = StateGraph(Steps)
    builder.add_node("first", step("first"))
    builder.add_node("second", step("second"))
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    return builder


@pytest.mark.parametrize(("fail_in", "kept"), [("first", False), ("second", True)])
def test_a_thread_failing_after_its_first_node_is_kept_for_resuming(
    fail_in: str, kept: bool, index: Path
) -> None:
    with sqlite_checkpointer(index) as saver:
        graph = two_steps(fail_in).compile(checkpointer=saver)
        config: RunnableConfig = {"configurable": {"thread_id": "t"}}
        with pytest.raises(RuntimeError), discard_unstarted(saver, "t"):
            graph.invoke({"done": []}, config)
        assert thread_ids(saver) == (["t"] if kept else [])


def test_the_checkpoint_store_waits_for_other_writers(tmp_path: Path) -> None:
    """Concurrent runs of one server share the store: WAL mode and a long busy timeout."""
    from graph_agent.replay import BUSY_TIMEOUT_S, sqlite_checkpointer

    with sqlite_checkpointer(tmp_path) as saver:
        mode = saver.conn.execute("PRAGMA journal_mode").fetchone()[0]
        waits_ms = saver.conn.execute("PRAGMA busy_timeout").fetchone()[0]
    assert mode == "wal" and waits_ms >= 30_000 and BUSY_TIMEOUT_S * 1000 == waits_ms
