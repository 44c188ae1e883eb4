"""Concurrent runners and writers on one results file never tear or duplicate lines."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from eval_helpers import Corpus, FakeSystem, read_lines

from evals.report import write_report
from evals.results_log import ResultsLog, read_latest
from evals.runner import run

SYSTEMS = ("fake-a", "fake-b", "fake-c")


def test_two_runners_in_threads_share_an_out_dir(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path
) -> None:
    for fake in fakes.values():
        fake.delay_s = 0.005
    summaries = []

    def go() -> None:
        summaries.append(
            run(SYSTEMS, corpus.bundle, corpus.index, tmp_path, workers=4, progress=False)
        )

    threads = [threading.Thread(target=go) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(summaries) == 2
    lines = read_lines(tmp_path / "results.jsonl")
    pairs = [(line["qid"], line["system"]) for line in lines]
    assert len(pairs) == len(set(pairs)) == 18, "each pair is written exactly once"
    report = write_report(tmp_path, systems=SYSTEMS, plots=False).report
    assert [rep.system for rep in report.systems] == list(SYSTEMS)
    assert all(rep.quality["n"] == 6 for rep in report.systems)


def test_two_handles_from_many_threads_write_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    logs = [ResultsLog(path), ResultsLog(path)]
    payload = ["x" * 50] * 400  # 20 kB lines: larger than any stdio buffer

    def write(worker: int) -> None:
        for i in range(10):
            logs[worker % 2].append({"qid": f"w{worker}-{i}", "system": "s", "ranking": payload})

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = read_lines(path)
    assert len(lines) == 80
    assert all(line["ranking"] == payload for line in lines)


WRITER = """
import sys
from pathlib import Path
from evals.results_log import ResultsLog
log = ResultsLog(Path(sys.argv[1]))
for i in range(60):
    log.append({"qid": f"{sys.argv[2]}-{i}", "system": "s", "ranking": ["c" * 30] * 100})
"""


def test_two_processes_append_to_one_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name]) for name in ("a", "b")
    ]
    assert [proc.wait(timeout=60) for proc in procs] == [0, 0]
    lines = read_lines(path)
    assert len(lines) == 120
    assert {line["qid"].split("-")[0] for line in lines} == {"a", "b"}


def test_same_pair_from_two_handles_is_kept_once(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    first, second = ResultsLog(path), ResultsLog(path)
    assert first.append({"qid": "q1", "system": "s", "ranking": ["a"]})
    assert not second.append({"qid": "q1", "system": "s", "ranking": ["b"]})
    assert read_latest(path)[("q1", "s")]["ranking"] == ["a"]
    assert set(second.done()) == {("q1", "s")}


def test_reader_keeps_latest_line_and_ignores_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [
        {"qid": "q1", "system": "s", "ranking": ["old"], "error": "boom"},
        {"qid": "q1", "system": "s", "ranking": ["new"]},
    ]
    path.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines) + b'{"qid": "q2"')
    latest = read_latest(path)
    assert latest == {("q1", "s"): lines[1]}
    log = ResultsLog(path)
    assert set(log.done()) == {("q1", "s")}
    assert path.read_bytes().endswith(b"\n"), "the torn tail was truncated"
