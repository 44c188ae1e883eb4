"""A run reads the index version it started with, even when a build publishes another."""

from __future__ import annotations

import operator
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from graph_agent import systems
from graph_agent.results import RunResult
from state.settings import RunSettings
from tools.corpus_index import open_index, reopen_index
from tools.index_pins import pinned_index, rebuilt_since_opened
from tools.index_versions import live_dir

Build = Callable[..., object]


@pytest.fixture
def index(mini_index: Path, tmp_path: Path) -> Path:
    """Return a private copy of the mini index (a test publishes new versions of it)."""
    return Path(shutil.copytree(mini_index, tmp_path / "index", symlinks=True))


def publish_and_reopen(mini_bundle: Path, index: Path, hash_build: Build) -> None:
    """Build a new version and reopen it, as `fif serve` does when it sees the build."""
    hash_build(mini_bundle, index)
    reopen_index(index)


def test_the_pinned_version_is_read_until_the_block_ends(
    index: Path, mini_bundle: Path, hash_build: Build
) -> None:
    with pinned_index(index, None, open_index(index)) as held:
        publish_and_reopen(mini_bundle, index, hash_build)
        assert open_index(index) is held
        assert open_index(index, None, ["marie_curie"]).data_dir == held.data_dir
        assert rebuilt_since_opened(held)
    after = open_index(index)
    assert after is not held and after.data_dir == live_dir(index) != held.data_dir


class Reads(TypedDict, total=False):
    versions: Annotated[list[str], operator.add]


def test_every_step_of_a_graph_reads_the_pinned_version(
    index: Path, mini_bundle: Path, hash_build: Build
) -> None:
    """The later steps run in LangGraph's worker threads (two at once), after a reopen."""

    def read(state: Reads) -> Reads:
        return {"versions": [str(open_index(index).data_dir)]}

    def read_then_rebuild(state: Reads) -> Reads:
        found = read(state)
        publish_and_reopen(mini_bundle, index, hash_build)
        return found

    graph = StateGraph(Reads)
    graph.add_node("first", read_then_rebuild)
    graph.add_node("left", read)
    graph.add_node("right", read)
    graph.add_edge(START, "first")
    graph.add_edge("first", "left")
    graph.add_edge("first", "right")
    graph.add_edge("left", END)
    graph.add_edge("right", END)
    with pinned_index(index, None, open_index(index)) as held:
        versions = graph.compile().invoke({"versions": []})["versions"]
    assert versions == [str(held.data_dir)] * 3
    assert open_index(index).data_dir == live_dir(index) != held.data_dir


def test_run_system_pins_the_index_for_the_whole_run(
    index: Path, mini_bundle: Path, hash_build: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    def reads_twice(question: str, settings: RunSettings, **_: Any) -> RunResult:
        before = open_index(settings.index_dir).data_dir
        publish_and_reopen(mini_bundle, index, hash_build)
        after = open_index(settings.index_dir).data_dir
        return RunResult(ranking=[], answer=f"{before}|{after}", cost={}, thread_id="t")

    spec = SimpleNamespace(replayable=True, own_settings=lambda c: c, ask=lambda: reads_twice)
    monkeypatch.setattr(systems, "get_system", lambda name: spec)
    result = systems.run_system("fif", "Where was Curie born?", RunSettings(index_dir=str(index)))
    before, after = str(result.answer).split("|")
    assert before == after != str(live_dir(index))
