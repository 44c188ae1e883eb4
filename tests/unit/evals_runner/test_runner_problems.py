"""Bad question lines are reported (warnings and RunSummary.problems), never a silent zero."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from eval_helpers import QUESTIONS, Corpus, FakeSystem, write_questions

from evals.runner import run
from tools.errors import ConfigError, DatasetFormatError


def test_problems_are_reported_and_good_lines_run(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, caplog
) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    unknown_gold = {**QUESTIONS[1], "qid": "q9", "gold_components": ["nowhere::p0"]}
    write_questions(bundle, [QUESTIONS[0], "{not json", QUESTIONS[0], unknown_gold, QUESTIONS[2]])
    with caplog.at_level(logging.WARNING):
        summary = run(["fake-a"], bundle, corpus.index, tmp_path / "out", progress=False)
    assert [ex.qid for ex in summary.examples] == ["q1", "q3"]
    assert [(p.line, p.qid) for p in summary.problems] == [(2, None), (3, "q1"), (4, "q9")]
    assert "3 question line(s) skipped, 2 usable" in caplog.text
    assert "duplicate qid" in caplog.text and "not valid JSON" in caplog.text


def test_no_usable_question_is_an_error(corpus: Corpus, fakes, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    write_questions(bundle, [{**QUESTIONS[0], "gold_components": ["nowhere::p0"]}])
    with pytest.raises(DatasetFormatError, match="no usable question"):
        run(["fake-a"], bundle, corpus.index, tmp_path / "out", progress=False)


def test_unknown_system_lists_known_ones(corpus: Corpus, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown system 'bm25'.*dense.*fif-no-planner"):
        run(["bm25"], corpus.bundle, corpus.index, tmp_path, progress=False)
    assert not (tmp_path / "results.jsonl").exists()
