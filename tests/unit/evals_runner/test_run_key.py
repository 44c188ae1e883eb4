"""Results are reused only under the key they were computed under: code, index, settings."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from eval_helpers import Corpus, FakeSystem, read_lines

from evals import run_config, run_key
from evals.report import write_report
from evals.run_key import CodeIdentity, manifest_hash
from evals.runner import run

SYSTEMS = ("fake-a", "fake-b")
PAIRS = 12
CLEAN = CodeIdentity("git:aaaa", False, "aaaa")


def _use_code(monkeypatch: pytest.MonkeyPatch, code: CodeIdentity) -> None:
    monkeypatch.setattr(run_key, "code_identity", lambda: code)
    monkeypatch.setattr(run_config, "code_identity", lambda: code)


def _run(corpus: Corpus, out: Path, **options):
    return run(SYSTEMS, corpus.bundle, corpus.index, out, progress=False, **options)


def _calls(fakes: dict[str, FakeSystem]) -> int:
    return sum(len(fake.calls) for fake in fakes.values())


@pytest.fixture
def first_run(corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, monkeypatch):
    """Run the fakes once under a clean commit; forget their calls."""
    _use_code(monkeypatch, CLEAN)
    _run(corpus, tmp_path)
    for fake in fakes.values():
        fake.calls.clear()
    return tmp_path


def test_identical_key_reuses_every_line(corpus, fakes, first_run: Path) -> None:
    summary = _run(corpus, first_run)
    assert (summary.computed, summary.skipped, summary.discarded) == (0, PAIRS, {})
    assert _calls(fakes) == 0


@pytest.mark.parametrize(
    ("code", "why"),
    [
        (CodeIdentity("git:bbbb", False, "bbbb"), "code"),
        (CodeIdentity("git:aaaa", True, "aaaa"), "dirty"),
        (CodeIdentity("git:aaaa+dirty:0123", True, "aaaa"), "code+dirty"),
        (CodeIdentity("pkg:0.1.0+src:feed", False, None), "code"),
    ],
    ids=["commit", "dirty-flag", "dirty-tree", "no-git"],
)
def test_other_code_recomputes_every_line(
    corpus, fakes, first_run: Path, monkeypatch, code: CodeIdentity, why: str
) -> None:
    _use_code(monkeypatch, code)
    summary = _run(corpus, first_run)
    assert summary.computed == PAIRS and summary.discarded == {why: PAIRS}
    assert _calls(fakes) == PAIRS
    latest = read_lines(first_run / "results.jsonl")[-PAIRS:]
    assert {line["run_key"]["code"] for line in latest} == {code.code}
    assert {line["run_key"]["dirty"] for line in latest} == {code.dirty}


def test_a_rebuilt_index_recomputes(corpus, fakes, first_run: Path, monkeypatch) -> None:
    monkeypatch.setattr("evals.runner.manifest_hash", lambda index_dir: "another-build")
    summary = _run(corpus, first_run)
    assert summary.discarded == {"index": PAIRS} and _calls(fakes) == PAIRS


def test_other_settings_recompute(corpus, fakes, first_run: Path) -> None:
    summary = _run(corpus, first_run, answer=True)
    assert summary.discarded == {"config": PAIRS} and _calls(fakes) == PAIRS


def test_a_system_context_is_part_of_its_key(corpus, fakes, first_run: Path) -> None:
    from state.settings import RunSettings

    fakes["fake-a"].context = RunSettings(max_steps=3)  # type: ignore[attr-defined]
    summary = _run(corpus, first_run)
    assert summary.discarded == {"config": PAIRS // 2}
    assert fakes["fake-a"].calls and not fakes["fake-b"].calls


def test_lines_without_a_key_are_recomputed(corpus, fakes, first_run: Path) -> None:
    path = first_run / "results.jsonl"
    lines = read_lines(path)
    path.write_text("".join(json.dumps({**line, "run_key": None}) + "\n" for line in lines))
    summary = _run(corpus, first_run)
    assert summary.discarded == {"no-key": PAIRS}


def test_report_uses_current_lines_and_says_what_it_left_out(
    corpus, fakes, first_run: Path, monkeypatch
) -> None:
    reference = write_report(first_run, systems=SYSTEMS, plots=False).report.systems
    _use_code(monkeypatch, CodeIdentity("git:cccc+dirty:0123", True, "cccc"))
    fakes["fake-b"].fail_on = {"q1", "q2", "q3", "q4", "q5", "q6"}
    _run(corpus, first_run)
    files = write_report(first_run, systems=SYSTEMS, plots=False)
    fake_a, fake_b = files.report.systems
    assert fake_a.quality == reference[0].quality  # same rankings, recomputed
    assert fake_b.errors == 6, "old successes of other code must not stand in for failures"
    assert "(dirty tree: uncommitted changes)" in files.markdown
    assert "| fake-a | `git:cccc+dirty:0123` |" in files.markdown
    assert "| 6 | 6 (code+dirty: 6) |" in files.markdown


def test_manifest_hash_ignores_how_the_build_ran_but_not_what_it_holds(
    corpus: Corpus, tmp_path: Path
) -> None:
    copy = tmp_path / "index"
    copy.mkdir()
    shutil.copy(corpus.index / "manifest.json", copy / "manifest.json")
    before = manifest_hash(copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest.update(built_at="2000-01-01T00:00:00+00:00", timings={"total": 1.0})
    manifest.update(vectors_token="another-build")
    manifest["corpus"]["path"] = "/moved/elsewhere"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert manifest_hash(copy) == before
    manifest["counts"]["paragraph"] += 1
    (copy / "manifest.json").write_text(json.dumps(manifest))
    assert manifest_hash(copy) != before


def test_outside_git_the_code_is_the_version_and_a_source_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for package in run_key.SOURCE_PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    monkeypatch.setattr(run_key, "REPO", tmp_path)
    monkeypatch.setattr(run_key, "git", lambda *args: None)
    run_key.code_identity.cache_clear()
    try:
        first = run_key.code_identity()
        (tmp_path / "nodes" / "planner.py").write_text("X = 1\n")
        run_key.code_identity.cache_clear()
        second = run_key.code_identity()
    finally:
        run_key.code_identity.cache_clear()
    assert first.commit is None and first.code.startswith(f"pkg:{run_key.fif_version()}+src:")
    assert second.code != first.code


def test_an_install_inside_another_checkout_is_not_stamped_with_its_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv's site-packages inside a git checkout must not take that checkout's commit."""
    answers = {("rev-parse", "--show-toplevel"): "/somewhere/else", ("rev-parse", "HEAD"): "abc"}
    monkeypatch.setattr(run_key, "REPO", tmp_path)
    monkeypatch.setattr(run_key, "git", lambda *args: answers.get(args))
    run_key.code_identity.cache_clear()
    try:
        code = run_key.code_identity()
    finally:
        run_key.code_identity.cache_clear()
    assert code.commit is None and code.code.startswith("pkg:")


def test_this_checkout_is_identified_by_its_commit() -> None:
    head = run_key.git("rev-parse", "HEAD")
    if head is None:
        pytest.skip("not running from a git checkout")
    assert run_key.code_identity().commit == head
    assert run_key.code_identity().code.startswith(f"git:{head}")
