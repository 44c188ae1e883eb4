import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fif import cli
from tools.manifest import Manifest

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"
RunFif = Callable[..., tuple[object, str, str]]


def test_build_writes_an_index_and_prints_a_summary(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli.app,
        [
            "build",
            str(MINI),
            "--index",
            str(tmp_path / "idx"),
            "--embedder",
            "hash:64",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Index idx" in result.output and "hash:64 (dim 64)" in result.output
    manifest = Manifest.load(tmp_path / "idx")
    assert manifest.complete and manifest.counts["document"] == 8


def test_search_json_lists_components_best_first(mini_index: Path, run_fif_main: RunFif) -> None:
    code, out, _ = run_fif_main(
        "search", "flag of Warsaw yellow red", "--index", str(mini_index),
        "--json", "-k", "4",
    )  # fmt: skip
    assert code == 0
    results = json.loads(out)
    assert len(results) == 4
    assert all(set(r) == {"component_id", "doc_id", "type", "score"} for r in results)
    assert results[0] == {
        **results[0],
        "component_id": "warsaw::i0",
        "doc_id": "warsaw",
        "type": "image",
    }
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)
    assert {r["type"] for r in results} <= {"paragraph", "table", "image"}


def test_search_table_output(mini_index: Path, run_fif_main: RunFif) -> None:
    code, out, _ = run_fif_main(
        "search", "polonium atomic number", "--index", str(mini_index),
        "--granularity", "subcomponent", "-k", "2",
    )  # fmt: skip
    assert code == 0 and "Ranked components" in out and "polonium::p0" in out


def test_update_refuses_a_folder_without_an_index_then_reports_documents(
    tmp_path: Path, run_fif_main: RunFif
) -> None:
    index = tmp_path / "idx"
    build = ("build", str(MINI), "--index", str(index), "--embedder", "hash:64", "--no-progress")
    code, out, err = run_fif_main(*build, "--update")
    assert code == 2 and out == "" and "no FiF index here" in err
    assert run_fif_main(*build)[0] == 0
    code, out, _ = run_fif_main(*build, "--update")
    assert code == 0 and "added=0, changed=0, removed=0, unchanged=8" in out


def test_a_missing_index_is_one_line_and_exit_code_2(tmp_path: Path, run_fif_main: RunFif) -> None:
    missing = tmp_path / ("a_rather_long_folder_name_" * 4) / "index"
    code, out, err = run_fif_main("search", "q", "--index", str(missing))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert f"{missing}: no FiF index here" in err and f"fif build CORPUS --index {missing}" in err
    assert "Traceback" not in err


def test_error_messages_are_not_read_as_markup(tmp_path: Path, run_fif_main: RunFif) -> None:
    missing = tmp_path / "[/bold]" / "fif[clip]"
    code, _, err = run_fif_main("search", "q", "--index", str(missing))
    assert code == 2 and f"{missing}: no FiF index here" in err


def test_an_unusable_corpus_is_exit_code_2(tmp_path: Path, run_fif_main: RunFif) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    code, _, err = run_fif_main(
        "build", str(tmp_path / "notes.txt"), "--index", str(tmp_path / "i"),
        "--embedder", "hash:64",
    )  # fmt: skip
    assert code == 2 and err.startswith("error: ")
    assert "not a folder, a .jsonl or a .pdf file" in err
    code, _, err = run_fif_main("build", str(tmp_path / "nowhere"), "--index", str(tmp_path / "i"))
    assert code == 2 and f"{tmp_path / 'nowhere'}: no such file or folder; check the path" in err


def test_skipped_inputs_are_listed_verbatim(
    write_bundle, records, tmp_path: Path, run_fif_main: RunFif
) -> None:
    folder = write_bundle(
        [
            records.document("a", records.paragraph("a::p0", "Alpha."),
                             {"component_id": "a::x0", "type": "[/video]"}),
        ]
    )  # fmt: skip
    code, _, err = run_fif_main(
        "build", str(folder), "--index", str(tmp_path / "i"),
        "--embedder", "hash:64", "--no-progress",
    )  # fmt: skip
    assert code == 0
    assert "1 inputs skipped" in err and "unknown component type '[/video]'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "q", "--granularity", "row"], "use document, component or subcomponent"),
        (["search"], "Missing argument 'question'"),
        (["search", "q", "-k", "0"], "Invalid value for '-k'"),
        (["nonsense"], "No such command 'nonsense'"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    mini_index: Path, run_fif_main: RunFif, args: list[str], message: str
) -> None:
    extra = ["--index", str(mini_index)] if args[0] == "search" else []
    code, _, err = run_fif_main(*args, *extra)
    assert code == 2 and message in err and "Traceback" not in err


class CountingHelper:
    """An embedding helper that only counts the calls that would start it."""

    def __init__(self) -> None:
        self.starts = 0

    def usable(self) -> bool:
        self.starts += 1
        return False

    def wait_ready(self, timeout_s: float) -> bool:
        self.starts += 1
        return False


def test_ask_embeds_its_one_question_without_starting_a_helper(
    mini_index: Path, tmp_path: Path, run_fif_main: RunFif, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    import tools.corpus_index

    helper = CountingHelper()
    monkeypatch.setattr(tools.corpus_index, "embed_helper", lambda *args: helper)
    index = shutil.copytree(mini_index, tmp_path / "index")  # opened afresh, with the helper
    code, out, _ = run_fif_main("ask", "Which river flows through Warsaw?", "--index", str(index))
    assert code == 0 and "Ranked components" in out
    assert helper.starts == 0
