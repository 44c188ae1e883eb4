"""`fif ask` model options: --vision/--no-vision and --price-table (JSON text or file)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import graph_agent.cli
from fif import cli
from graph_agent.results import RunResult
from state.settings import RunSettings

TABLE = {"my-model": [1.5, 6.0]}


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> list[RunSettings]:
    """Capture the RunSettings `fif ask` builds instead of running the graph."""
    seen: list[RunSettings] = []

    def fake_ask(
        system: str,
        question: str,
        context: RunSettings,
        thread_id: str | None = None,
        continue_thread: bool = False,
        one_question: bool = False,
    ) -> RunResult:
        seen.append(context)
        return RunResult(ranking=[], thread_id="t")

    monkeypatch.setattr(graph_agent.cli, "run_system", fake_ask)
    for name in ("FIF_VISION", "FIF_PRICE_TABLE"):
        monkeypatch.delenv(name, raising=False)
    return seen


def fif_ask(monkeypatch, capsys, index: Path, *args: str) -> tuple[int, str]:
    """Run `fif ask q --index INDEX --json ARGS` through main(); return (exit code, stderr)."""
    monkeypatch.setattr(sys, "argv", ["fif", "ask", "q", "--index", str(index), "--json", *args])
    with pytest.raises(SystemExit) as done:
        cli.main()
        raise SystemExit(0)
    return int(done.value.code or 0), capsys.readouterr().err


def test_vision_and_a_json_price_table_reach_the_context(
    mini_index: Path, contexts, monkeypatch, capsys
) -> None:
    code, err = fif_ask(
        monkeypatch, capsys, mini_index, "--vision", "--price-table", json.dumps(TABLE)
    )
    assert code == 0, err
    [context] = contexts
    assert context.vision is True and context.price_table == {"my-model": (1.5, 6.0)}


def test_a_price_table_file_is_read(
    mini_index: Path, contexts, tmp_path: Path, monkeypatch, capsys
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(TABLE), encoding="utf-8")
    code, err = fif_ask(monkeypatch, capsys, mini_index, "--price-table", str(path))
    assert code == 0, err
    assert contexts[0].price_table == {"my-model": (1.5, 6.0)} and contexts[0].vision is False


def test_the_flags_override_the_environment_and_default_to_it(
    mini_index: Path, contexts, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("FIF_VISION", "true")
    monkeypatch.setenv("FIF_PRICE_TABLE", json.dumps(TABLE))
    assert fif_ask(monkeypatch, capsys, mini_index)[0] == 0
    assert fif_ask(monkeypatch, capsys, mini_index, "--no-vision")[0] == 0
    assert [c.vision for c in contexts] == [True, False]
    assert contexts[0].price_table == contexts[1].price_table == {"my-model": (1.5, 6.0)}


@pytest.mark.parametrize(
    ("env", "args", "named"),
    [
        ({"FIF_PRICE_TABLE": "{not json"}, [], "FIF_PRICE_TABLE"),
        ({"FIF_PRICE_TABLE": '{"my-model": 5}'}, [], "FIF_PRICE_TABLE"),
        ({}, ["--price-table", "{not json"], "--price-table"),
        ({}, ["--price-table", "missing-prices.json"], "--price-table"),
    ],
    ids=["env-not-json", "env-wrong-shape", "flag-not-json", "flag-missing-file"],
)
def test_a_malformed_price_table_is_one_line_and_exit_code_2(
    mini_index: Path, contexts, monkeypatch, capsys, env, args, named
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code, err = fif_ask(monkeypatch, capsys, mini_index, *args)
    assert code == 2 and not contexts
    assert err.startswith(f"error: invalid setting '{named}': ") and err.count("\n") == 1
    assert "Traceback" not in err
