"""`fif eval --judge` end to end on the tiny bundle: offline it says so, with a model it judges."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
import typer
from eval_helpers import Corpus, FakeSystem
from test_judge import ScriptedJudge
from typer.testing import CliRunner

from evals.cli import eval_command
from evals.judge_run import JUDGMENTS_FILE
from tools.chat_models import register_chat_model

app = typer.Typer()
app.command("eval")(eval_command)
app.command("noop")(lambda: None)  # a second command keeps "eval" a subcommand, as in fif


def _invoke(corpus: Corpus, out: Path, *args: str):
    where = ["--dataset", str(corpus.bundle), "--index", str(corpus.index), "--out", str(out)]
    return CliRunner().invoke(app, ["eval", *where, "--no-progress", "-s", "fake-a", *args])


def test_offline_judge_says_it_needs_an_llm_and_numbers_decide(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path
) -> None:
    result = _invoke(corpus, tmp_path / "out", "--judge")
    assert result.exit_code == 0, result.output
    assert "--judge needs an LLM" in " ".join(result.output.split())
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "| Answered | Correct |" in md and "Correct decided by" in md
    assert not (tmp_path / "out" / JUDGMENTS_FILE).exists()


def test_judge_backend_with_a_model_judges_once(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedJudge(replies=[json.dumps({"correct": True, "reason": "same place"})])
    spec = register_chat_model(f"judge-cli-{uuid.uuid4().hex[:8]}", model)
    monkeypatch.setenv("FIF_CHAT_MODEL", spec)
    monkeypatch.setenv("FIF_LLM_BACKOFF_S", "0")
    result = _invoke(corpus, tmp_path / "out", "--judge", "--judge-backend", "openai")
    assert result.exit_code == 0, result.output
    assert "answer(s) judged" in result.output and model.calls == 2  # fake-a answers q1, q2
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "- fake-a: LLM judge 2, no answer 4" in md, md
    again = _invoke(corpus, tmp_path / "out", "--judge", "--judge-backend", "openai")
    assert again.exit_code == 0 and model.calls == 2, again.output
