"""Per-question eval rows: question and gold from the run's dataset, each system's hit and rank."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient


def test_rows_carry_question_gold_hit_rank_and_the_run_index(
    client: TestClient, runs_dir: Path, served_index: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "bundle"
    dataset.mkdir()
    question = {"qid": "q1", "question": "Who?", "answers": ["A"], "gold_components": ["b::p1"]}
    (dataset / "questions.jsonl").write_text(json.dumps(question) + "\n")
    run = runs_dir / "with-questions"
    run.mkdir()
    config = {"dataset": str(dataset), "index": str(served_index)}
    (run / "run_config.json").write_text(json.dumps(config))
    lines = [
        {"qid": "q1", "system": "fif", "ranking": ["a::p0", "b::p1"], "latency_ms": 5.0},
        {"qid": "q1", "system": "dense", "ranking": ["a::p0"], "latency_ms": 1.0},
        {"qid": "q2", "system": "dense", "ranking": [], "error": "RuntimeError: boom"},
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    got = client.get("/api/evals/questions", params={"name": "with-questions"}).json()
    assert got["index"] == "mini" and got["systems"] == ["fif", "dense"]
    first, second = got["rows"]
    assert (first["question"], first["gold"]) == ("Who?", ["b::p1"])
    assert first["systems"]["fif"]["hit"] is True and first["systems"]["fif"]["rank"] == 2
    assert first["systems"]["dense"]["hit"] is False and first["systems"]["dense"]["rank"] is None
    assert second["question"] == "" and second["systems"]["dense"]["hit"] is None
    outside = client.get("/api/evals/questions", params={"name": "../x"})
    assert outside.status_code == 403
