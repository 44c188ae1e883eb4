"""`fif convert` end to end on the raw fixtures: the bundle, the summary, and one-line errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evals.convert_cli import print_summary
from evals.datasets import ADAPTERS, ConversionJob
from evals.datasets import raw as raw_files
from evals.datasets.bundle import ConversionReport
from evals.datasets.mmqa import convert as convert_mmqa
from evals.datasets.progress import conversion_progress
from fif import cli

ReadBundle = Callable[[Path], Any]
RAW_FIXTURES = ("mmqa_raw", "webqa_raw", "mmcoqa_raw", "ottqa_raw")
RAW = Path(__file__).resolve().parents[2] / "fixtures" / "raw"
RAW_MMQA = RAW / "mmqa"


def _convert(*args: str) -> Any:
    return CliRunner().invoke(cli.app, ["convert", *args, "--no-progress"])


@pytest.mark.parametrize("raw_fixture", RAW_FIXTURES)
def test_convert_writes_a_bundle_and_says_what_was_skipped(
    raw_fixture: str, request: pytest.FixtureRequest, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    dataset = raw_fixture.removesuffix("_raw")
    raw: Path = request.getfixturevalue(raw_fixture)
    result = _convert(dataset, str(raw), str(tmp_path / "bundle"))
    assert result.exit_code == 0, result.output
    bundle = read_bundle(tmp_path / "bundle")
    assert bundle.questions and bundle.docs
    assert bundle.stats["dataset"] == dataset and bundle.stats["split"] == "dev"
    assert all(g in bundle.component_ids for q in bundle.questions for g in q["gold_components"])
    assert re.search(rf"│ questions +│ +{len(bundle.questions)} │", result.output)
    assert "skipped" in result.output  # every fixture holds deliberately broken records
    for kind in bundle.stats["problems_by_kind"]:
        assert kind in result.output
    assert "questions.jsonl" in result.output and "stats.json" in result.output


def test_the_summary_gives_reasons_and_the_first_problems(ottqa_raw: Path, tmp_path: Path) -> None:
    result = _convert("ottqa", str(ottqa_raw), str(tmp_path / "all"))
    assert result.exit_code == 0, result.output
    for kind in ("answer_nodes=2+", "table_not_found", "bad_raw_record", "links_dropped"):
        assert re.search(rf"│ {re.escape(kind)} +│ +\d+ │", result.output), kind
    assert "answer node not unique" in result.output
    assert "dev.traced.json item 6: not a question" in result.output


def test_limit_is_passed_to_the_adapter(ottqa_raw: Path, tmp_path: Path) -> None:
    result = _convert("hybridqa", str(ottqa_raw), str(tmp_path / "out"), "--limit", "2")
    assert result.exit_code == 0, result.output
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert stats["questions"] == 2 and stats["limit"] == 2


def test_images_folder_is_copied_into_the_bundle(mmqa_raw: Path, tmp_path: Path) -> None:
    images = tmp_path / "images_zip" / "final_dataset_images"
    images.mkdir(parents=True)
    (images / "Taipei.jpg").write_bytes(b"\xff\xd8\xff fake jpeg")
    out = tmp_path / "out"
    result = _convert("mmqa", str(mmqa_raw), str(out), "--images", str(tmp_path / "images_zip"))
    assert result.exit_code == 0, result.output
    assert (out / "images" / "Taipei.jpg").is_file()
    assert "image_missing" in result.output and "images/" in result.output


@pytest.mark.parametrize(
    ("dataset", "raw", "expected"),
    [
        ("nope", "ottqa", "unknown dataset 'nope'; known datasets: " + ", ".join(sorted(ADAPTERS))),
        ("webqa", "ottqa", "no WebQA train/val file found (looked for WebQA_train_val.json)"),
        ("ottqa", "missing", "raw folder"),
    ],
)
def test_bad_dataset_or_raw_files_end_in_one_line_with_exit_code_2(
    dataset: str,
    raw: str,
    expected: str,
    run_fif_main: Callable[..., tuple[object, str, str]],
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    args = ("convert", dataset, str(RAW / raw), str(out))
    code, stdout, stderr = run_fif_main(*args)
    assert code == 2 and stdout == ""
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert stderr.startswith("error: ") and expected in stderr
    assert not out.exists()


def test_the_progress_bar_counts_raw_records(mmqa_raw: Path, tmp_path: Path) -> None:
    with conversion_progress("convert mmqa") as bar:
        convert_mmqa(ConversionJob(mmqa_raw, tmp_path / "out"))
    raw_lines = [line for path in RAW_MMQA.glob("*.jsonl") for line in path.open() if line.strip()]
    assert bar.n == len(raw_lines) == 16  # questions, texts, tables and images, each read once


def test_problems_past_the_first_ones_are_listed_in_a_named_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(raw_files, "MESSAGES_KEPT", 7)
    problems = raw_files.ProblemLog()
    for n in range(9):
        problems.add("bad_raw_line", f"dev.jsonl line {n}: not JSON")
    problems.write(tmp_path)
    counts = dict(problems.counts)
    report = ConversionReport(
        "ottqa",
        "dev",
        tmp_path,
        documents=1,
        components=1,
        questions=1,
        problems_by_kind=counts,
        problems=tuple(problems.messages),
        stats={"problems_by_kind": counts},
    )
    print_summary(report)
    listed = tmp_path / raw_files.PROBLEMS_FILE
    assert f"… 4 more problems: see {listed}" in capsys.readouterr().out
    lines = listed.read_text().splitlines()
    assert lines[:7] == problems.messages and lines[7].startswith("… 2 more, not kept")
    raw_files.ProblemLog().write(tmp_path)  # a clean reconversion leaves no stale list
    assert not listed.exists()
