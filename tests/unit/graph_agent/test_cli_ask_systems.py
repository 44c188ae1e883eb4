"""`fif ask --system`: every system of one registry runs from the CLI with its own trace."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import graph_agent.cli
from evals.systems import SYSTEMS
from graph_agent.registry import SYSTEMS as ASK_SYSTEMS
from graph_agent.results import RunResult
from state.ircot_state import IrcotContext
from state.settings import RunSettings
from tools.manifest import CHECKPOINT_FILE

RunFif = Callable[..., tuple[object, str, str]]
QUESTION = "What is the atomic number of the element named after Marie Curie's native country?"


@pytest.fixture
def writable_index(mini_index: Path, tmp_path: Path) -> Path:
    """A private copy of the mini index: checkpointed runs write their SQLite file into it."""
    return Path(shutil.copytree(mini_index, tmp_path / "index"))


def test_the_ask_registry_names_systems_the_evaluation_knows() -> None:
    assert set(ASK_SYSTEMS) == {"fif", "lilac", "ircot", "mmapg", "reagent", "extraction", "dense"}
    assert set(ASK_SYSTEMS) <= set(SYSTEMS)


def test_a_system_reads_its_own_settings_from_the_environment(
    mini_index: Path, run_fif_main: RunFif, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[RunSettings] = []

    def fake_run(
        system: str,
        question: str,
        context: RunSettings,
        thread_id: str | None,
        continue_thread: bool = False,
        one_question: bool = False,
    ) -> RunResult:
        seen.append(context)
        return RunResult(ranking=[], thread_id="t")

    monkeypatch.setattr(graph_agent.cli, "run_system", fake_run)
    monkeypatch.setenv("FIF_SEARCH_MODE", "dense")
    monkeypatch.setenv("FIF_RETRIEVE_K", "2")
    code, _, err = run_fif_main(
        "ask", QUESTION, "--index", str(mini_index), "-s", "ircot", "-k", "3"
    )
    assert code == 0, err
    [context] = seen
    assert isinstance(context, IrcotContext) and context.top_k == 3
    assert (context.search_mode, context.retrieve_k) == ("dense", 2)


def test_ircot_runs_checkpointed_and_prints_its_trace_as_json(
    writable_index: Path, run_fif_main: RunFif
) -> None:
    code, out, err = run_fif_main(
        "ask", QUESTION, "--index", str(writable_index), "--system", "ircot", "-k", "5", "--json"
    )
    assert code == 0, err
    payload = json.loads(out)
    assert len(payload["ranking"]) == 5
    assert [step["node"] for step in payload["trace"]][:2] == ["retriever", "reasoner"]
    assert payload["trace"][0]["query"] == QUESTION
    assert f"thread: {payload['thread_id']}" in err
    assert (writable_index / CHECKPOINT_FILE).is_file()


@pytest.mark.parametrize("system", ["ircot", "lilac"])
def test_a_graph_baseline_prints_a_table_of_node_records(
    system: str, writable_index: Path, run_fif_main: RunFif
) -> None:
    code, out, err = run_fif_main("ask", QUESTION, "--index", str(writable_index), "-s", system)
    assert code == 0, err
    assert "Ranked components" in out and "Trace" in out and "decided by" in out


def test_dense_runs_without_a_thread(mini_index: Path, run_fif_main: RunFif) -> None:
    code, out, err = run_fif_main(
        "ask", QUESTION, "--index", str(mini_index), "--system", "dense", "-k", "3", "--json"
    )
    assert code == 0, err
    payload = json.loads(out)
    assert len(payload["ranking"]) == 3 and payload["trace"] == []
    assert "thread:" not in err


def test_an_unknown_system_is_one_line_naming_the_known_ones(
    mini_index: Path, run_fif_main: RunFif
) -> None:
    code, _, err = run_fif_main("ask", QUESTION, "--index", str(mini_index), "--system", "rag")
    assert code == 2 and err.count("\n") == 1
    assert all(name in err for name in ASK_SYSTEMS) and "Traceback" not in err
