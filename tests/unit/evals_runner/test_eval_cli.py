"""`eval_command` in a small typer app: compare writes one table with all systems and plots."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from eval_helpers import Corpus, FakeSystem
from typer.testing import CliRunner

from evals.cli import eval_command, system_names
from tools.errors import ConfigError

app = typer.Typer()
app.command("eval")(eval_command)
app.command("noop")(lambda: None)  # a second command keeps "eval" a subcommand, as in fif


def _invoke(*args: str):
    return CliRunner().invoke(app, ["eval", *args])


def _on(corpus: Corpus, out: Path) -> tuple[str, ...]:
    """The --dataset, --index and --out options of a run on the corpus, without progress."""
    return ("--dataset", str(corpus.bundle), "--index", str(corpus.index), "--out", str(out),
            "--no-progress")  # fmt: skip


def test_compare_writes_one_table_with_every_system(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = _invoke(
        "--compare",
        "fake-b,fake-a",
        "--system",
        "fake-c",
        "--dataset",
        str(corpus.bundle),
        "--index",
        str(corpus.index),
        "--out",
        str(out),
        "--workers",
        "2",
        "--no-progress",
        "--answer",
    )
    assert result.exit_code == 0, result.output
    md = (out / "summary.md").read_text()
    table = md.split("## Retrieval and QA")[1].split("##")[0]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| fake")]
    assert rows == ["fake-c", "fake-b", "fake-a"]
    assert (out / "recall_at_k.png").is_file() and (out / "recall_vs_cost.png").is_file()
    assert (out / "summary.csv").is_file() and (out / "run_config.json").is_file()
    assert "fake-b" in result.output and "summary.md" in result.output
    assert all(len(fake.calls) == 6 for fake in fakes.values())


def test_limit_and_unknown_backend(
    corpus: Corpus, fakes, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = ["--dataset", str(corpus.bundle), "--index", str(corpus.index), "--no-progress"]
    result = _invoke("--system", "fake-a", "--limit", "2", "--out", str(tmp_path / "a"), *base)
    assert result.exit_code == 0, result.output
    assert fakes["fake-a"].calls == ["q1", "q2"]
    assert "have results" not in caplog.text  # the limit, not a failure, left the rest out
    bad = _invoke("--system", "fake-a", "--backend", "gpt", "--out", str(tmp_path / "b"), *base)
    assert bad.exit_code == 2 and "offline" in bad.output


def test_unknown_system_raises_config_error(corpus: Corpus, tmp_path: Path) -> None:
    result = _invoke("--system", "nope", *_on(corpus, tmp_path))
    assert isinstance(result.exception, ConfigError)
    assert "known systems" in str(result.exception)


def test_system_names_merge_and_dedupe() -> None:
    assert system_names(["fif", "dense"], "dense, lilac ,fif") == ["fif", "dense", "lilac"]
    every = system_names(None, "all")
    assert {"dense", "sparse", "hybrid", "fif", "lilac"} <= set(every)
    assert not any(name.startswith("fif-") for name in every)  # no ablations or variants
    assert system_names(["fif-no-planner"], "all")[0] == "fif-no-planner"
    try:
        system_names(None, " , ")
    except typer.BadParameter as err:
        assert "--compare" in str(err)
    else:
        raise AssertionError("expected BadParameter")


def test_langsmith_flag_runs_offline(corpus: Corpus, fakes, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")
    result = _invoke("--system", "fake-a", "--langsmith", *_on(corpus, tmp_path))
    assert result.exit_code == 0, result.output
    assert "langsmith.evaluate" in result.output
    assert fakes["fake-a"].calls == ["q1", "q2", "q3", "q4", "q5", "q6"], "replayed, not re-run"


def test_a_failing_langsmith_warns_and_keeps_the_local_report(
    corpus: Corpus, fakes, tmp_path: Path, monkeypatch, caplog
) -> None:
    import evals.langsmith_eval as langsmith_eval

    def unreachable(*args: object, **kwargs: object) -> None:
        raise langsmith_eval.LangSmithUnavailableError("LangSmith at http://127.0.0.1:9 failed")

    monkeypatch.setattr(langsmith_eval, "run_langsmith", unreachable)
    result = _invoke("--system", "fake-a", "--langsmith", *_on(corpus, tmp_path))
    assert result.exit_code == 0, result.output
    assert result.exception is None
    assert "LangSmith at http://127.0.0.1:9 failed" in caplog.text
    assert (tmp_path / "summary.md").is_file() and "wrote" in result.output


def test_fif_eval_help_lists_the_documented_options() -> None:
    from fif import cli

    result = CliRunner().invoke(cli.app, ["eval", "--help"], prog_name="fif")
    assert result.exit_code == 0, result.output
    assert "Usage: fif eval [OPTIONS]" in result.output
    for option in (
        "--system",
        "--compare",
        "--workers",
        "--limit",
        "--answer",
        "--langsmith",
        "--out",
        "--dataset",
        "--index",
    ):
        assert option in result.output, option
