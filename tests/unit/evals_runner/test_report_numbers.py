"""The report on hand-computed cases: pooled scores, QA, efficiency, breakdowns, files."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evals.datasets.questions import EvalExample
from evals.report import build_report, percentile, write_report

EXAMPLES = [
    EvalExample(
        "q1",
        "Q1?",
        ("Eiffel Tower",),
        ("a",),
        hops=1,
        modalities=("text",),
        answer_source="passage",
    ),
    EvalExample("q2", "Q2?", ("Paris",), ("c", "d"), hops=2, modalities=("table", "text")),
]
LINES = {
    ("q1", "sys"): {
        "qid": "q1",
        "system": "sys",
        "ranking": ["b", "a", "c"],
        "answer": "The Eiffel Tower",
        "latency_ms": 10.0,
        "cost": {"llm_calls": 1, "usd": 0.01, "vector_ms": 2.0, "input_tokens": 100},
    },
    ("q2", "sys"): {
        "qid": "q2",
        "system": "sys",
        "ranking": ["c", "x1", "x2", "x3", "x4", "d"],
        "answer": "Paris France",
        "latency_ms": 30.0,
        "cost": {"llm_calls": 3, "usd": 0.03, "vector_ms": 4.0, "input_tokens": 300},
    },
}


def test_missing_results_are_counted_against_the_questions_asked_for(
    caplog: pytest.LogCaptureFixture,
) -> None:
    first = {key: line for key, line in LINES.items() if key[0] == "q1"}
    build_report(first, EXAMPLES)
    assert "sys: 1 of 2 questions have results" in caplog.text
    caplog.clear()
    build_report(first, EXAMPLES, expected=["q1"])  # e.g. `fif eval --limit 1`
    assert "have results" not in caplog.text


def test_pooled_retrieval_qa_and_efficiency() -> None:
    report = build_report(LINES, EXAMPLES)
    (rep,) = report.systems
    assert rep.quality == pytest.approx(
        {
            "R@1": 0.5,
            "R@2": 1.0,
            "R@5": 1.0,
            "R@10": 1.0,
            "AllGold@5": 0.5,
            "AllGold@10": 1.0,
            "MRR@10": 0.75,
            "n": 2.0,
            "EM": 0.5,
            "F1": (1.0 + 2 / 3) / 2,
            "Answered": 1.0,
            "Correct": 1.0,  # both golds are short text, contained in the answers
            "n_qa": 2.0,
        }
    )
    assert rep.answer_methods == {"text": 2}
    assert rep.efficiency["latency_p50_ms"] == pytest.approx(20.0)
    assert rep.efficiency["latency_p95_ms"] == pytest.approx(29.0)
    assert rep.efficiency["llm_calls"] == pytest.approx(2.0)
    assert rep.efficiency["vector_ms"] == pytest.approx(3.0)
    assert rep.efficiency["input_tokens"] == pytest.approx(200.0)
    assert rep.efficiency["usd"] == pytest.approx(0.04)
    assert report.has_answers and report.spent_money
    assert rep.breakdowns["hops"]["1"]["MRR@10"] == 0.5
    assert rep.breakdowns["hops"]["2"]["AllGold@5"] == 0.0
    assert set(rep.breakdowns["modality"]) == {"text", "table+text"}
    assert set(rep.breakdowns["answer_source"]) == {"passage", "unknown"}


def test_errors_score_zero_and_are_counted() -> None:
    lines = dict(LINES)
    lines[("q2", "sys")] = {
        "qid": "q2",
        "system": "sys",
        "ranking": [],
        "latency_ms": 0.0,
        "cost": {},
        "error": "RuntimeError: boom",
    }
    (rep,) = build_report(lines, EXAMPLES).systems
    assert rep.errors == 1
    assert rep.quality["R@10"] == 0.5
    assert rep.efficiency["latency_p50_ms"] == 10.0, "failed runs are left out of latency"


def test_systems_keep_the_given_order_and_missing_answers_show_as_dashes() -> None:
    lines = {
        **LINES,
        **{
            (q, "dense"): {**line, "system": "dense", "answer": None}
            for (q, _), line in LINES.items()
        },
    }
    report = build_report(lines, EXAMPLES, systems=["sys", "dense"])
    assert [rep.system for rep in report.systems] == ["sys", "dense"]
    assert "EM" not in report.systems[1].quality
    assert [rep.system for rep in build_report(lines, EXAMPLES).systems] == ["dense", "sys"]


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [([], 50, 0.0), ([5.0], 95, 5.0), ([1.0, 2.0, 3.0, 4.0], 50, 2.5), ([3.0, 1.0, 2.0], 100, 3.0)],
)
def test_percentile(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def _write_run(out: Path) -> Path:
    out.mkdir()
    questions = out / "questions.jsonl"
    questions.write_text(
        "".join(
            json.dumps(
                {
                    "qid": ex.qid,
                    "question": ex.question,
                    "answers": list(ex.answers),
                    "gold_components": list(ex.gold_components),
                    "hops": ex.hops,
                    "modalities": list(ex.modalities),
                    "answer_source": ex.answer_source,
                }
            )
            + "\n"
            for ex in EXAMPLES
        )
    )
    stale = {**LINES[("q1", "sys")], "ranking": ["z"]}
    lines = [stale, *LINES.values()]  # the stale q1 line comes first: the latest one counts
    (out / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return questions


def test_files_markdown_csv_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "out"
    questions = _write_run(out)
    files = write_report(out, questions)
    md = files.summary_md.read_text()
    row = "| sys | 0.500 | 1.000 | 1.000 | 1.000 | 0.500 | 1.000 | 0.750 | 2 | 0.500 | 0.833 | "
    row += "1.000 | 1.000 | 2 |"  # EM, F1, then Answered and Correct
    assert row in md
    assert "## By hops" in md and "## By modality" in md and "## By answer_source" in md
    rows = list(csv.DictReader(files.summary_csv.open()))
    overall = [row for row in rows if row["section"] == "overall"]
    assert len(overall) == 1 and float(overall[0]["usd"]) == pytest.approx(0.04)
    assert {row["section"] for row in rows} == {"overall", "hops", "modality", "answer_source"}
    assert [path.name for path in files.plots] == ["recall_at_k.png", "recall_vs_cost.png"]
    for path in files.plots:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    again = write_report(out, questions, plots=False)
    assert again.markdown == files.markdown
