"""A run killed mid-way resumes without redoing or losing anything, and reports identically."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from eval_helpers import Corpus, FakeSystem, read_lines

from evals.report import write_report
from evals.runner import run
from evals.shared_index import HELPER_WAIT_S
from tools.query_vectors import QueryVectors

SYSTEMS = ("fake-a", "fake-b")


def _run(corpus: Corpus, out: Path, workers: int = 1):
    return run(SYSTEMS, corpus.bundle, corpus.index, out, workers=workers, progress=False)


def _reference(corpus: Corpus, out: Path) -> tuple[str, str]:
    _run(corpus, out)
    files = write_report(out, systems=SYSTEMS, plots=False)
    return files.markdown, files.summary_csv.read_text()


@pytest.mark.parametrize(
    "torn",
    [b'{"qid": "q4", "system": "fake-a", "rank', b'{"qid": "q4", "sys\n'],
    ids=["no-newline", "bad-json"],
)
def test_resume_after_kill_redoes_nothing_and_matches(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, torn: bytes, caplog
) -> None:
    reference_md, reference_csv = _reference(corpus, tmp_path / "whole")
    whole = (tmp_path / "whole" / "results.jsonl").read_bytes().splitlines(keepends=True)
    for fake in fakes.values():
        fake.calls.clear()

    out = tmp_path / "killed"
    out.mkdir()
    kept = whole[:5]
    (out / "results.jsonl").write_bytes(b"".join(kept) + torn)

    with caplog.at_level(logging.WARNING):
        summary = _run(corpus, out, workers=3)

    assert "torn" in caplog.text or "unreadable last line" in caplog.text
    done_before = {(json.loads(line)["qid"], json.loads(line)["system"]) for line in kept}
    redone = {(qid, name) for name in SYSTEMS for qid in fakes[name].calls}
    assert not redone & done_before, "a finished pair was run again"
    assert len(redone) == 12 - len(done_before) == summary.computed
    assert summary.skipped == len(done_before)
    lines = read_lines(out / "results.jsonl")
    assert len(lines) == 12
    assert len({(line["qid"], line["system"]) for line in lines}) == 12

    files = write_report(out, systems=SYSTEMS, plots=False)
    assert files.markdown == reference_md
    assert files.summary_csv.read_text() == reference_csv


def test_second_resume_is_a_no_op(corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path) -> None:
    _run(corpus, tmp_path)
    before = (tmp_path / "results.jsonl").read_bytes()
    fakes["fake-a"].calls.clear()
    summary = _run(corpus, tmp_path)
    assert summary.computed == 0 and summary.skipped == 12
    assert fakes["fake-a"].calls == []
    assert (tmp_path / "results.jsonl").read_bytes() == before


def test_failed_pairs_are_recorded_then_redone(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path
) -> None:
    fakes["fake-a"].fail_on = {"q3"}
    first = _run(corpus, tmp_path)
    assert first.errors == 1
    failed = [line for line in read_lines(tmp_path / "results.jsonl") if line.get("error")]
    assert [(line["qid"], line["system"]) for line in failed] == [("q3", "fake-a")]
    assert "scripted failure" in failed[0]["error"]
    report = write_report(tmp_path, systems=SYSTEMS, plots=False).report
    assert report.systems[0].errors == 1

    fakes["fake-a"].fail_on = set()
    fakes["fake-a"].calls.clear()
    second = _run(corpus, tmp_path)
    assert fakes["fake-a"].calls == ["q3"] and second.errors == 0
    assert write_report(tmp_path, systems=SYSTEMS, plots=False).report.systems[0].errors == 0


def test_out_dir_of_another_dataset_is_refused(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path
) -> None:
    from tools.errors import ConfigError

    _run(corpus, tmp_path)
    config = json.loads((tmp_path / "run_config.json").read_text())
    config["dataset"] = "/elsewhere"
    (tmp_path / "run_config.json").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match="another run"):
        _run(corpus, tmp_path)


def test_run_config_records_provenance(corpus: Corpus, fakes, tmp_path: Path) -> None:
    summary = run(["fake-c"], corpus.bundle, corpus.index, tmp_path, limit=2, progress=False)
    config = json.loads(summary.run_config_path.read_text())
    assert config["systems"] == ["fake-c"]
    assert config["backend"] == "offline"
    assert config["index_manifest"]["text_embedder"]["spec"] == "hash:64"
    assert config["index_manifest"]["counts"]["paragraph"] == 12
    assert "git_commit" in config and "fif_version" in config and "date" in config
    assert [ex.qid for ex in summary.examples] == ["q1", "q2"]
    assert len(read_lines(summary.results_path)) == 2


def test_a_config_error_ends_the_run_instead_of_failing_every_question(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, monkeypatch
) -> None:
    from tools.errors import ConfigError

    def broken(example, want_answer):
        raise ConfigError("no API key in OPENAI_API_KEY")

    monkeypatch.setattr(fakes["fake-a"], "retrieve", broken)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        run(["fake-a"], corpus.bundle, corpus.index, tmp_path, workers=2, progress=False)
    assert read_lines(tmp_path / "results.jsonl") == []


def test_each_pair_pays_for_its_own_query_embeddings(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A system must not look fast because another one embedded the same question first."""
    from evals.systems import SYSTEMS, SystemOutput
    from tools.corpus_index import open_index

    index = open_index(str(corpus.index), None)  # the key the runner and systems use
    seen_cached: list[bool] = []

    class Embeds:
        def __init__(self, name: str) -> None:
            self.name = name

        def retrieve(self, example, want_answer: bool) -> SystemOutput:
            seen_cached.append(index.queries.cached(example.question))
            index.embed_query(example.question)
            return SystemOutput([], None, {}, 1.0)

    for name in ("embeds-a", "embeds-b"):
        monkeypatch.setitem(SYSTEMS, name, lambda config, n=name: Embeds(n))
    run(["embeds-a", "embeds-b"], corpus.bundle, corpus.index, tmp_path, progress=False)
    assert seen_cached and not any(seen_cached)


def test_the_helper_loads_before_the_first_question_only_for_systems_that_declare(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, monkeypatch
) -> None:
    started: list[float] = []
    record = lambda self, wait_s=0.0: started.append(wait_s)  # noqa: E731
    monkeypatch.setattr(QueryVectors, "start_helper", record)
    run(["fake-a"], corpus.bundle, corpus.index, tmp_path / "plain", progress=False)
    assert started == []  # no system of the run declares query texts
    fakes["fake-b"].declares_queries = True  # as FiF's systems do
    run(["fake-b"], corpus.bundle, corpus.index, tmp_path / "fif", progress=False)
    assert started == [HELPER_WAIT_S]
    run(["fake-b"], corpus.bundle, corpus.index, tmp_path / "fif", progress=False)
    assert started == [HELPER_WAIT_S]  # resumed with nothing left to run: no wait
