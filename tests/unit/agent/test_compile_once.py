"""A process compiles each graph once: asking again, with or without checkpoints, reuses it."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import pytest
from agent_runs import FLAG_QUESTION
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import StateGraph

from graph_agent import fif_graph as fif_module
from graph_agent.api import ask
from graph_agent.fif_graph import fif_graph
from graph_agent.replay import list_checkpoints
from graph_agent.systems import run_system
from state.fif_context import FiFContext

ask_checkpointed = partial(run_system, "fif")
"""`fif ask`'s checkpointed FiF run."""


@pytest.fixture
def no_compiling(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every further StateGraph.compile fail the test; return the names it was asked for."""
    asked: list[str] = []

    def refuse(self, *args, **kwargs):
        asked.append(str(kwargs.get("name")))
        raise AssertionError("a graph was compiled again")

    monkeypatch.setattr(StateGraph, "compile", refuse)
    return asked


def test_binding_a_checkpointer_shares_the_compiled_graph(no_compiling: list[str]) -> None:
    saver = InMemorySaver()
    first, second = fif_graph(saver), fif_graph(saver)
    assert first.checkpointer is saver and second.checkpointer is saver
    assert first.builder is fif_module.graph.builder
    assert all(first.nodes[n] is fif_module.graph.nodes[n] for n in fif_module.graph.nodes)
    assert fif_graph() is fif_module.graph and fif_module.graph.checkpointer is None
    assert no_compiling == []


def test_repeated_asks_compile_nothing(mini_index: Path, no_compiling: list[str]) -> None:
    context = FiFContext(index_dir=str(mini_index))
    saver = InMemorySaver()
    plain = [ask(FLAG_QUESTION, context) for _ in range(2)]
    saved = [ask(FLAG_QUESTION, context, thread_id=t, checkpointer=saver) for t in ("a", "b")]
    assert no_compiling == []
    assert plain[0].ranking == plain[1].ranking == saved[0].ranking == saved[1].ranking
    assert {c.config["configurable"]["thread_id"] for c in saver.list(None)} == {"a", "b"}


def test_checkpointed_cli_runs_compile_nothing(mini_index: Path, no_compiling, tmp_path) -> None:
    index = Path(shutil.copytree(mini_index, tmp_path / "index"))  # checkpoints land here
    result = ask_checkpointed(FLAG_QUESTION, FiFContext(index_dir=str(index)), "cli-thread")
    assert list_checkpoints(index, result.thread_id)
    assert no_compiling == []
