"""SIGKILL an eval run half-way, resume it, and get the same summary as an uninterrupted run."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

TOPICS = [
    "river",
    "mountain",
    "castle",
    "bridge",
    "forest",
    "harbor",
    "desert",
    "volcano",
    "glacier",
    "canyon",
    "island",
    "lake",
    "valley",
    "tower",
    "temple",
    "market",
]
N = 40
RUNNER = """
import sys, time
from pathlib import Path
from evals import systems
from evals.runner import run

delay = float(sys.argv[4])
dense = systems.SYSTEMS["dense"]

class Slow:
    def __init__(self, inner):
        self.inner, self.name = inner, inner.name
    def retrieve(self, example, want_answer):
        time.sleep(delay)  # only so the test can kill the run half-way
        return self.inner.retrieve(example, want_answer)

systems.SYSTEMS["dense"] = lambda config: Slow(dense(config))
run(["dense"], Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), workers=2,
    progress=False)
"""


def _bundle(folder: Path) -> Path:
    folder.mkdir(parents=True)
    docs, questions = [], []
    for i in range(N):
        name = f"{TOPICS[i % len(TOPICS)]} {i}"
        docs.append(
            {
                "doc_id": f"d{i}",
                "title": name.title(),
                "components": [
                    {
                        "component_id": f"d{i}::p0",
                        "type": "paragraph",
                        "links": [f"d{(i + 1) % N}"],
                        "text": f"The {name} is known for its {TOPICS[(i + 3) % 16]}. "
                        f"Founded in {1800 + i}.",
                    },
                    {
                        "component_id": f"d{i}::p1",
                        "type": "paragraph",
                        "text": f"Visitors reach the {name} by {TOPICS[(i + 7) % 16]}.",
                    },
                ],
            }
        )
        gold = [f"d{i}::p0"] + ([f"d{(i + 1) % N}::p1"] if i % 3 == 0 else [])
        questions.append(
            {
                "qid": f"q{i:02d}",
                "question": f"When was the {name} founded?",
                "answers": [str(1800 + i)],
                "gold_components": gold,
                "hops": len(gold),
                "modalities": ["text"],
            }
        )
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return folder


def _start(bundle: Path, index: Path, out: Path, delay: float) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-c", RUNNER, str(bundle), str(index), str(out), str(delay)]
    return subprocess.Popen(args, cwd=Path(__file__).resolve().parents[2])


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _quality(out: Path) -> list[dict[str, str]]:
    """Return summary.csv without the timing columns, which differ between runs."""
    timing = {"latency_p50_ms", "latency_p95_ms", "llm_ms", "vector_ms", "embedding_ms"}
    rows = list(csv.DictReader((out / "summary.csv").open()))
    return [{k: v for k, v in row.items() if k not in timing} for row in rows]


def test_sigkill_half_way_then_resume_matches_uninterrupted(tmp_path: Path) -> None:
    from corpus_builder.build import BuildOptions, build
    from evals.report import write_report

    bundle = _bundle(tmp_path / "bundle")
    index = tmp_path / "index"
    build(bundle, index, BuildOptions(text_embedder="hash:64", show_progress=False))

    killed = tmp_path / "killed"
    proc = _start(bundle, index, killed, delay=0.1)
    deadline = time.monotonic() + 120
    while _lines(killed / "results.jsonl") < N // 2:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    done_at_kill = _lines(killed / "results.jsonl")
    assert N // 2 <= done_at_kill < N

    assert _start(bundle, index, killed, delay=0.0).wait(timeout=300) == 0
    whole = tmp_path / "whole"
    assert _start(bundle, index, whole, delay=0.0).wait(timeout=300) == 0

    records = [json.loads(line) for line in (killed / "results.jsonl").read_text().splitlines()]
    assert sorted(r["qid"] for r in records) == [f"q{i:02d}" for i in range(N)], "no pair twice"
    reference = {r["qid"]: r["ranking"] for r in map(json.loads, (whole / "results.jsonl").open())}
    assert {r["qid"]: r["ranking"] for r in records} == reference

    write_report(killed, plots=False)
    write_report(whole, plots=False)
    assert _quality(killed) == _quality(whole)
    assert json.loads((killed / "run_config.json").read_text())["systems"] == ["dense"]
