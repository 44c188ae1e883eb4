"""Per-question eval rows: question and gold from the run's dataset, each system's hit and rank."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

FIF_STEP = {
    "step": 0,
    "subquery": "Who?",
    "strategy": {"doc_mode": "vector", "comp_mode": "vector", "granularity": "document"},
    "anchor": None,
    "success": False,
    "reason": "too little covered",
    "documents": ["a", "b"],
    "components": ["a::p0"],
}
"""A FiF step record as `traces.jsonl` keeps it (found items reduced to their ids)."""
LADDER_UP = {"strategy": {"doc_mode": "vector", "comp_mode": "vector", "granularity": "component"}}


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
    trace = {
        "qid": "q1",
        "system": "fif",
        "trace": [FIF_STEP, {**FIF_STEP, "step": 1, **LADDER_UP}],
    }
    (run / "traces.jsonl").write_text(json.dumps(trace) + "\n")
    got = client.get("/api/evals/questions", params={"name": "with-questions"}).json()
    assert got["index"] == "mini" and got["systems"] == ["fif", "dense"]
    first, second = got["rows"]
    assert (first["question"], first["gold"]) == ("Who?", ["b::p1"])
    assert first["systems"]["fif"]["hit"] is True and first["systems"]["fif"]["rank"] == 2
    assert first["systems"]["dense"]["hit"] is False and first["systems"]["dense"]["rank"] is None
    assert second["question"] == "" and second["systems"]["dense"]["hit"] is None
    assert first["systems"]["fif"]["traced"] and not first["systems"]["dense"]["traced"]
    steps = client.get(
        "/api/evals/trace", params={"name": "with-questions", "qid": "q1", "system": "fif"}
    )
    shown = steps.json()
    assert shown["index"] == "mini"  # its candidates open on the run's index
    rungs = [step["record"]["rung"] for step in shown["steps"]]
    assert rungs == [1, 2] and shown["steps"][0]["record"]["document_ids"] == ["a", "b"]
    none = {"name": "with-questions", "qid": "q1", "system": "dense"}
    missing = client.get("/api/evals/trace", params=none)
    assert missing.status_code == 404 and "kept no trace" in missing.json()["detail"]
    outside = client.get("/api/evals/questions", params={"name": "../x"})
    assert outside.status_code == 403
