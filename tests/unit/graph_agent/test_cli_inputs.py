"""Bad input to `fif ask`/`fif search` and the API stops with a clear message; --json is whole."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

import graph_agent.cli
from fif import cli
from graph_agent.api import ask
from graph_agent.registry import get_system
from graph_agent.results import RunResult
from state.settings import RunSettings
from tools.errors import InputError
from tools.questions import require_question

LANGGRAPH_JSON = Path(__file__).resolve().parents[3] / "langgraph.json"


def run_fif(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """Run `fif ARGS` through main(); return (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["fif", *args])
    with pytest.raises(SystemExit) as done:
        cli.main()
        raise SystemExit(0)
    captured = capsys.readouterr()
    return int(done.value.code or 0), captured.out, captured.err


@pytest.mark.parametrize("command", ["ask", "search"])
@pytest.mark.parametrize("question", ["", "   \n"])
def test_an_empty_question_is_refused_on_the_command_line(
    mini_index: Path, monkeypatch, capsys, command: str, question: str
) -> None:
    code, _, err = run_fif(monkeypatch, capsys, command, question, "--index", str(mini_index))
    assert code == 2 and "question argument is empty" in err
    assert f'e.g. fif {command} "' in err  # the example is the command that was run


def test_an_empty_question_is_refused_by_the_api(mini_index: Path) -> None:
    context = RunSettings(index_dir=str(mini_index))
    with pytest.raises(InputError, match="question is empty"):
        ask("  ", context)
    with pytest.raises(InputError, match="must be a string"):
        require_question(None)
    assert require_question("  Who?  ") == "Who?"


@pytest.mark.parametrize("system", sorted(json.loads(LANGGRAPH_JSON.read_text())["graphs"]))
def test_every_served_graph_refuses_an_empty_question(mini_index: Path, system: str) -> None:
    module, name = json.loads(LANGGRAPH_JSON.read_text())["graphs"][system].split(":")
    path = Path(module).with_suffix("").as_posix().lstrip("./").replace("/", ".")
    graph = getattr(importlib.import_module(path), name)
    context_type = get_system(system).context_type
    with pytest.raises(InputError, match="question is empty"):  # Studio / invoke input
        graph.invoke(
            {"question": " "},
            {"configurable": {"thread_id": system}},
            context=context_type(index_dir=str(mini_index)),
        )


def test_an_unknown_ablation_lists_the_valid_names(mini_index: Path, monkeypatch, capsys) -> None:
    code, _, err = run_fif(
        monkeypatch, capsys, "ask", "q", "--index", str(mini_index), "--ablation", "no_plan"
    )
    assert code == 2 and "unknown --ablation 'no_plan'" in err
    assert "no_planner" in err and "no_backtracking" in err


def test_ask_json_carries_subqueries_and_fallbacks(mini_index: Path, monkeypatch, capsys) -> None:
    def fake_ask(
        system: str,
        question: str,
        context: RunSettings,
        thread_id: str | None = None,
        continue_thread: bool = False,
        one_question: bool = False,
    ) -> RunResult:
        return RunResult(
            ranking=[],
            thread_id="t",
            subqueries=[{"index": 0, "text": question}],
            fallbacks=["planner: offline-fallback (timeout)"],
        )

    monkeypatch.setattr(graph_agent.cli, "run_system", fake_ask)
    code, out, err = run_fif(
        monkeypatch, capsys, "ask", "Who?", "--index", str(mini_index), "--json"
    )
    assert code == 0, err
    printed = json.loads(out)
    assert printed["subqueries"] == [{"index": 0, "text": "Who?"}]
    assert printed["fallbacks"] == ["planner: offline-fallback (timeout)"]
    assert {"ranking", "answer", "trace", "cost", "thread_id"} <= set(printed)
