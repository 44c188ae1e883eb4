"""Questions a baseline finds in its top 10 and the candidate misses, with the candidate's trace."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from eval_helpers import QUESTIONS, Corpus, FakeSystem, read_lines, scripted_ranking

from evals.datasets.questions import EvalExample
from evals.regressions import default_pairs, find_regressions, regressions_markdown
from evals.report import write_report
from evals.runner import TRACES_FILE, run
from evals.systems import SYSTEMS, SystemOutput

FILLER = [f"filler::p{i}" for i in range(20)]


def _example(qid: str, *gold: str) -> EvalExample:
    return EvalExample(qid, f"question {qid}?", ("x",), tuple(gold))


EXAMPLES = [
    _example("lost", "a::p0"),
    _example("kept", "b::p0", "c::p0"),
    _example("both-miss", "d::p0"),
    _example("deep", "e::p0"),
    _example("no-fif-line", "f::p0"),
]
RESULTS = {
    ("lost", "dense"): {"ranking": ["z::p0", "a::p0", *FILLER[:8]]},
    ("lost", "fif"): {"ranking": FILLER[:10]},
    ("kept", "dense"): {"ranking": ["c::p0", *FILLER[:9]]},
    ("kept", "fif"): {"ranking": [*FILLER[:9], "b::p0"]},
    ("both-miss", "dense"): {"ranking": FILLER[:10]},
    ("both-miss", "fif"): {"ranking": FILLER[10:20]},
    ("deep", "dense"): {"ranking": [*FILLER[:10], "e::p0"]},  # rank 11: not in the top 10
    ("deep", "fif"): {"ranking": FILLER[:10]},
    ("no-fif-line", "dense"): {"ranking": ["f::p0"]},
}
TRACES = {
    ("lost", "fif"): {
        "trace": [
            {
                "step": 0,
                "subquery": "first hop",
                "strategy": {"doc_mode": "vector"},
                "components": ["q::p0", "a::p0"],
                "success": True,
                "reason": "found | linked",
            },
            {"step": 1, "subquery": "second hop", "components": ["r::p0"], "success": False},
        ]  # fmt: skip
    }
}


def test_only_a_baseline_hit_the_candidate_lost_is_listed_with_its_rank() -> None:
    found = find_regressions(RESULTS, EXAMPLES, ("dense", "fif"), TRACES)
    assert [r.qid for r in found] == ["lost"]
    (lost,) = found[0].lost
    assert (lost.component_id, lost.baseline_rank, lost.candidate_rank) == ("a::p0", 2, None)
    assert found[0].trace[0]["subquery"] == "first hop"


def test_the_markdown_names_the_lost_gold_its_rank_and_the_step_that_had_it() -> None:
    found = find_regressions(RESULTS, EXAMPLES, ("dense", "fif"), TRACES)
    text = regressions_markdown([("dense", "fif"), ("lilac", "fif")], found)
    assert "| dense | fif | 1 |" in text and "| lilac | fif | 0 |" in text
    assert "### lost (dense → fif): question lost?" in text
    assert "`a::p0` (dense rank 2, fif not in its ranking)" in text
    assert (
        "| 0 | first hop | vector | – | 0 docs, 2 comps | `a::p0` @2 | True | found \\| linked |"
        in text
    )
    assert "| 1 | second hop |  | – | 0 docs, 1 comps | – | False |  |" in text
    assert "both-miss" not in text and "kept" not in text


def test_a_candidate_rank_beyond_k_is_reported() -> None:
    results = {
        ("q", "dense"): {"ranking": ["a::p0"]},
        ("q", "fif"): {"ranking": [*FILLER[:10], "a::p0"]},
    }
    (regression,) = find_regressions(results, [_example("q", "a::p0")], ("dense", "fif"), {})
    assert regression.lost[0].candidate_rank == 11 and regression.trace == ()


def test_default_pairs_put_every_other_system_against_the_candidate() -> None:
    assert default_pairs(["dense", "fif", "lilac"], "fif") == [("dense", "fif"), ("lilac", "fif")]
    assert default_pairs(["dense", "lilac"], "fif") == []


MISSED = {"q1", "q4", "q6"}
"""Questions the tracing fake ranks no gold component for."""


def traced_ranking(qid: str, gold: set[str]) -> list[str]:
    ranking = scripted_ranking("traced", qid)
    return [cid for cid in ranking if cid not in gold][:10] if qid in MISSED else ranking


@dataclass
class TracingFake(FakeSystem):
    """A fake graph system: it misses MISSED and reports a one-step trace with scores, costs."""

    def retrieve(self, example: EvalExample, want_answer: bool) -> SystemOutput:
        output = super().retrieve(example, want_answer)
        ranking = traced_ranking(example.qid, set(example.gold))
        found = [{"id": cid, "doc_id": "d", "kind": "paragraph", "score": 0.5}
                 for cid in ranking[:3]]  # fmt: skip
        step = {"step": 0, "subquery": example.question, "components": found,
                "success": False, "reason": "scripted", "cost": {"vector_ms": 1.0}}  # fmt: skip
        return SystemOutput(ranking, None, output.cost, output.latency_ms, [step])


def test_a_run_writes_traces_and_the_regression_files(
    corpus: Corpus, fakes: dict[str, FakeSystem], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(SYSTEMS, "traced", lambda config: TracingFake("traced"))
    run(["fake-a", "traced"], corpus.bundle, corpus.index, tmp_path, progress=False)
    traces = read_lines(tmp_path / TRACES_FILE)
    assert len(traces) == 6 and {t["system"] for t in traces} == {"traced"}
    gold = {q["qid"]: set(q["gold_components"]) for q in QUESTIONS}
    for line in traces:
        assert line["trace"][0]["components"] == traced_ranking(line["qid"], gold[line["qid"]])[:3]
    assert "cost" not in traces[0]["trace"][0] and traces[0]["run_key"]["config"]

    files = write_report(tmp_path, plots=False, candidate="traced")
    payload = json.loads((tmp_path / "regressions.json").read_text())
    expected = _brute_force(corpus, "fake-a")
    assert payload["pairs"] == [
        {"baseline": "fake-a", "candidate": "traced", "count": len(expected)}
    ]
    assert [r["qid"] for r in payload["regressions"]] == expected
    assert expected, "the scripted rankings should give at least one regression"
    assert files.markdown.endswith((tmp_path / "regressions.md").read_text())
    assert "`louvre::p1`" in (tmp_path / "regressions.md").read_text()  # q1's gold, lost
    assert files.regressions == (tmp_path / "regressions.json", tmp_path / "regressions.md")


def _brute_force(corpus: Corpus, baseline: str) -> list[str]:
    lost = []
    for line in (corpus.bundle / "questions.jsonl").read_text().splitlines():
        question = json.loads(line)
        gold = set(question["gold_components"])
        ours = traced_ranking(question["qid"], gold)
        if gold & set(scripted_ranking(baseline, question["qid"])[:10]) and not gold & set(ours):
            lost.append(question["qid"])
    return lost
