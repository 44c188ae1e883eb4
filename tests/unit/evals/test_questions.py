"""load_questions on good and bad question files."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from evals.datasets.questions import EvalExample, load_questions
from tools.errors import DatasetFormatError

GOOD = {
    "qid": "q1",
    "question": "Where was the player born ?",
    "answers": ["February 17 , 1846"],
    "gold_components": ["Page::table::Page_0", "Alice::p0"],
    "gold_docs": ["Page", "Alice"],
    "hops": 2,
    "modalities": ["table", "text"],
    "answer_source": "passage",
    "gold_cells": [{"component_id": "Page::table::Page_0", "row": 0, "col": 1}],
}
TURN = {
    "qid": "C_7_1",
    "question": "How often is that office elected?",
    "answers": ["every four years"],
    "gold_components": ["Office::p1"],
    "conversation_id": "C_7",
    "turn": 2,
    "history": ["Who held the office in 1994?"],
}


def write(path: Path, lines: list[object]) -> Path:
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_good_file(tmp_path: Path) -> None:
    loaded = load_questions(write(tmp_path / "q.jsonl", [GOOD, "", TURN]))
    assert loaded.problems == ()
    first, second = loaded.examples
    assert isinstance(first, EvalExample)
    assert first.gold == frozenset({"Page::table::Page_0", "Alice::p0"})
    assert first.hops == 2 and first.answer_source == "passage"
    assert first.extra["gold_cells"][0]["row"] == 0
    assert first.source == f"{tmp_path / 'q.jsonl'}:1"
    assert second.conversation_id == "C_7" and second.turn == 2
    assert second.history == ("Who held the office in 1994?",)


def test_bad_lines_are_skipped_with_named_warnings(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(
        tmp_path / "q.jsonl",
        [
            GOOD,
            "{not json",
            {**GOOD, "qid": "q2", "gold_components": []},
            {k: v for k, v in GOOD.items() if k != "question"} | {"qid": "q3"},
            {**GOOD},
            "[1, 2]",
        ],
    )
    with caplog.at_level(logging.WARNING):
        loaded = load_questions(path)
    assert [e.qid for e in loaded.examples] == ["q1"]
    assert [(p.line, p.qid) for p in loaded.problems] == [
        (2, None),
        (3, "q2"),
        (4, "q3"),
        (5, "q1"),
        (6, None),
    ]
    messages = [str(p) for p in loaded.problems]
    assert "not valid JSON" in messages[0]
    assert "gold_components" in messages[1]
    assert "'question'" in messages[2] and "Field required" in messages[2]
    assert "duplicate qid (first seen at line 1)" in messages[3]
    assert "expected a JSON object" in messages[4]
    for line in (2, 3, 4, 5, 6):
        assert f"{path}:{line}" in caplog.text


def test_strict_raises_naming_path_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", [GOOD, {**GOOD, "qid": "q2", "answers": "x"}])
    with pytest.raises(DatasetFormatError, match=r"q\.jsonl:2 \(qid 'q2'\).*answers"):
        load_questions(path, strict=True)


def test_unknown_gold_ids(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path / "q.jsonl", [GOOD, {**GOOD, "qid": "q2", "gold_components": ["nope"]}])
    known = {"Page::table::Page_0"}
    with caplog.at_level(logging.WARNING):
        loaded = load_questions(path, known_component_ids=known)
    assert [e.qid for e in loaded.examples] == ["q1"]  # partly known: kept, with a warning
    assert "'q1'" in caplog.text and "Alice::p0" in caplog.text
    (problem,) = loaded.problems
    assert problem.qid == "q2" and "none of its gold component ids" in problem.message
    with pytest.raises(DatasetFormatError, match="q2"):
        load_questions(path, known_component_ids=known, strict=True)


def test_missing_file_is_a_dataset_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetFormatError, match="cannot open question file"):
        load_questions(tmp_path / "absent.jsonl")


def test_numbers_in_answers_become_strings(tmp_path: Path) -> None:
    loaded = load_questions(write(tmp_path / "q.jsonl", [{**GOOD, "answers": [5]}]))
    assert loaded.examples[0].answers == ("5",)


def test_shared_bundle_loads_cleanly() -> None:
    # shared/ sits beside the repository checkout (locally and in CI).
    bundle = Path(__file__).resolve().parents[4] / "shared" / "data" / "ottqa-dev200"
    if not (bundle / "questions.jsonl").is_file():
        pytest.skip(f"shared ottqa-dev200 bundle not found at {bundle}")
    known = {
        c["component_id"]
        for line in (bundle / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
        for c in json.loads(line)["components"]
    }
    loaded = load_questions(bundle / "questions.jsonl", known, strict=True)
    assert len(loaded.examples) == 200
