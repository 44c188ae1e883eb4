"""The MMCoQA adapter on a small fixture: conversations over MMQA-style collections."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.datasets import ConversionJob
from evals.datasets.mmcoqa import convert
from evals.datasets.questions import load_questions

ReadBundle = Callable[[Path], Any]


def test_conversations_fill_history(
    mmcoqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    report = convert(ConversionJob(mmcoqa_raw, tmp_path / "out"))
    bundle = read_bundle(tmp_path / "out")
    assert [q["qid"] for q in bundle.questions] == ["C_7_0", "C_7_1", "C_7_2", "C_9_0"]
    first, second, third, other = bundle.questions
    assert (first["conversation_id"], first["turn"]) == ("C_7", 1) and "history" not in first
    assert (second["turn"], second["history"]) == (
        2,
        ["Who held the office of Baltimore County Executive in 1994?"],
    )
    # the third turn has no `history` field: the earlier turns of C_7 are used
    assert third["turn"] == 3
    assert third["history"] == [first["question"], second["question"]]
    assert third["gold_question"] == "What does Dutch Ruppersberger look like?"
    assert (other["conversation_id"], other["turn"]) == ("C_9", 1)

    # qrels name the evidence; without a qrels entry the answer's instances do
    assert first["gold_components"] == ["Dutch_Ruppersberger::t0"]
    assert second["gold_components"] == ["Baltimore_County_Executive::p1"]
    assert third["gold_components"] == ["Dutch_Ruppersberger::i0"]
    assert other["gold_components"] == ["Taipei::i0"]
    assert (second["modalities"], second["answer_source"], second["hops"]) == (
        ["text"],
        "passage",
        1,
    )
    assert all(g in bundle.component_ids for q in bundle.questions for g in q["gold_components"])
    assert report.problems_by_kind["no_gold"] == 1  # C_9_1 has no evidence anywhere

    loaded = load_questions(tmp_path / "out" / "questions.jsonl", bundle.component_ids, strict=True)
    assert loaded.examples[2].history == (first["question"], second["question"])


def test_limit_keeps_gold_pages_and_their_links(
    mmcoqa_raw: Path, tmp_path: Path, read_bundle: ReadBundle
) -> None:
    convert(ConversionJob(mmcoqa_raw, tmp_path / "out", limit=1))
    bundle = read_bundle(tmp_path / "out")
    assert [q["qid"] for q in bundle.questions] == ["C_7_0"]
    assert set(bundle.docs) == {"Dutch_Ruppersberger", "Baltimore_County_Executive"}
