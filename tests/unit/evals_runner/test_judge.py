"""The LLM judge with scripted chat models: verdicts, reuse on re-run, fallbacks, the report."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from evals.datasets.questions import EvalExample
from evals.judge import NO_LLM, Judge
from evals.judge_run import JUDGMENTS_FILE, judge_run, read_judgments
from evals.report import build_report
from evals.results_log import read_latest
from state.settings import RunSettings
from tools.chat_models import register_chat_model
from tools.cost import CostMeter

QUESTION = "What is Nike's year end FY2019 total current assets? Answer in USD millions."
EXAMPLE = EvalExample("q1", QUESTION, ("$16525.00",), ("d::p1",))
PROSE = EvalExample(
    "q2",
    "How is it growing?",
    ("It grew modestly in FY2022, mostly through business abroad.",),
    ("d::p2",),
)


class ScriptedJudge(BaseChatModel):
    """Replies with the scripted texts in turn (the last one repeats); counts its calls."""

    replies: list[str]
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted-judge"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> ChatResult:
        reply = self.replies[min(self.calls, len(self.replies) - 1)]
        self.calls += 1
        usage = {"input_tokens": 120, "output_tokens": 15, "total_tokens": 135}
        message = AIMessage(content=reply, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


class TimingOut(BaseChatModel):
    """A judge server that never answers in time."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "timing-out"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> ChatResult:
        self.calls += 1
        raise TimeoutError("the judge server did not answer in time")


def _context(model: BaseChatModel) -> RunSettings:
    spec = register_chat_model(f"judge-{uuid.uuid4().hex[:8]}", model)
    return RunSettings(backend="openai", chat_model=spec, llm_backoff_s=0.0, llm_retries=1)


def _verdict(correct: bool, reason: str = "same figure") -> str:
    return json.dumps({"correct": correct, "reason": reason})


def _write_results(out: Path, answers: dict[str, str | None]) -> None:
    out.mkdir(exist_ok=True)
    lines = [
        {"qid": qid, "system": "sys", "ranking": ["d::p1"], "answer": answer, "run_key": {}}
        for qid, answer in answers.items()
    ]
    with (out / "results.jsonl").open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)


def test_a_verdict_is_asked_once_and_reused_on_a_rerun(tmp_path: Path) -> None:
    model = ScriptedJudge(replies=[_verdict(True), _verdict(False, "says nothing of abroad")])
    _write_results(tmp_path, {"q1": "$16.5 billion", "q2": "Yes, it grew."})
    context = _context(model)
    first = judge_run(tmp_path, [EXAMPLE, PROSE], ["sys"], context)
    assert (first.asked, first.reused, first.fallbacks, model.calls) == (2, 0, 0, 2)
    assert first.cost["llm_calls"] == 2 and first.cost["input_tokens"] == 240
    again = judge_run(tmp_path, [EXAMPLE, PROSE], ["sys"], context)
    assert (again.asked, again.reused, model.calls) == (0, 2, 2)
    stored = read_judgments(tmp_path)[("q2", "sys")]["judge"]
    assert stored["decided_by"] == "llm" and stored["reason"] == "says nothing of abroad"
    assert stored["prompt_version"].startswith("judge-")


def test_a_changed_answer_is_judged_again(tmp_path: Path) -> None:
    model = ScriptedJudge(replies=[_verdict(True)])
    context = _context(model)
    _write_results(tmp_path, {"q1": "$16.5 billion"})
    judge_run(tmp_path, [EXAMPLE], ["sys"], context)
    assert judge_run(tmp_path, [EXAMPLE], ["sys"], context).asked == 0
    _write_results(tmp_path, {"q1": "$16,525 million"})
    assert judge_run(tmp_path, [EXAMPLE], ["sys"], context).asked == 1
    assert model.calls == 2


def test_a_malformed_reply_falls_back_to_number_matching(tmp_path: Path) -> None:
    model = ScriptedJudge(replies=["Sure! The answer looks right to me.", '{"correct": "maybe"}'])
    _write_results(tmp_path, {"q1": "16,525"})
    summary = judge_run(tmp_path, [EXAMPLE], ["sys"], _context(model))
    assert (summary.fallbacks, model.calls) == (1, 2)  # one repair, then the fallback
    line = read_latest(tmp_path / JUDGMENTS_FILE)[("q1", "sys")]
    verdict = line["judge"]
    assert verdict["decided_by"] == "offline-fallback" and verdict["correct"] is True
    assert "judge failed" in verdict["reason"] and line["error"]
    fixed = ScriptedJudge(replies=[_verdict(False, "wrong unit")])
    assert judge_run(tmp_path, [EXAMPLE], ["sys"], _context(fixed)).asked == 1  # asked again


def test_a_flaky_server_gets_retries_then_the_fallback() -> None:
    model = TimingOut()
    meter = CostMeter()
    verdict = Judge(_context(model)).verdict(QUESTION, EXAMPLE.answers, "$17,000 million", meter)
    assert model.calls == 2 and meter.llm_failed_attempts == 2  # the first try and one retry
    assert meter.llm_calls == 0  # neither was answered
    assert (verdict.decided_by, verdict.correct) == ("offline-fallback", False)
    assert "TimeoutError" in verdict.reason or "did not answer" in verdict.reason


def test_no_answer_is_judged_without_a_call() -> None:
    model = ScriptedJudge(replies=[_verdict(True)])
    verdict = Judge(_context(model)).verdict(QUESTION, EXAMPLE.answers, "fail", CostMeter())
    assert (verdict.correct, verdict.decided_by, model.calls) == (False, "rule", 0)


def test_offline_the_judge_says_it_needs_an_llm(tmp_path: Path, caplog) -> None:
    _write_results(tmp_path, {"q1": "16,525"})
    summary = judge_run(tmp_path, [EXAMPLE], ["sys"], RunSettings(backend="offline"))
    assert summary.problem == NO_LLM and "needs an LLM" in NO_LLM
    assert "needs an LLM" in caplog.text
    assert not (tmp_path / JUDGMENTS_FILE).exists()


def test_a_missing_model_is_a_clear_fallback_not_a_crash() -> None:
    judge = Judge(RunSettings(backend="openai", chat_model="registered:nobody-registered-this"))
    assert judge.caller is None and judge.problem and "unavailable" in judge.problem
    verdict = judge.verdict(QUESTION, EXAMPLE.answers, "$16,525 million", CostMeter())
    assert (verdict.correct, verdict.decided_by) == (True, "offline")


def test_the_report_takes_correct_from_current_verdicts(tmp_path: Path) -> None:
    model = ScriptedJudge(replies=[_verdict(False, "too vague"), _verdict(True)])
    _write_results(tmp_path, {"q1": "$16.5 billion", "q2": "It grew modestly, abroad mostly."})
    judge_run(tmp_path, [EXAMPLE, PROSE], ["sys"], _context(model))
    results = read_latest(tmp_path / "results.jsonl")
    offline = build_report(results, [EXAMPLE, PROSE]).systems[0]
    assert offline.quality["Correct"] == 0.5 and offline.answer_methods == {
        "number": 1,
        "undecided": 1,
    }
    judged = build_report(results, [EXAMPLE, PROSE], judgments=read_judgments(tmp_path))
    rep = judged.systems[0]
    assert (rep.quality["Answered"], rep.quality["Correct"]) == (1.0, 0.5)
    assert rep.answer_methods == {"judge": 2}
    _write_results(tmp_path, {"q2": "Something else entirely."})  # the verdict is now stale
    results = read_latest(tmp_path / "results.jsonl")
    stale = build_report(results, [EXAMPLE, PROSE], judgments=read_judgments(tmp_path))
    assert stale.systems[0].answer_methods == {"judge": 1, "undecided": 1}


@pytest.mark.parametrize("reply", ['{"correct": true}', '{"correct": true, "reason": "   "}'])
def test_the_schema_wants_a_reason(reply: str) -> None:
    model = ScriptedJudge(replies=[reply])
    verdict = Judge(_context(model)).verdict(QUESTION, EXAMPLE.answers, "16,525", CostMeter())
    assert verdict.decided_by == "offline-fallback"


def test_systems_with_the_same_answer_share_one_call(tmp_path: Path) -> None:
    model = ScriptedJudge(replies=[_verdict(True)])
    _write_results(tmp_path, {"q1": "$16.5 billion"})
    line = {"qid": "q1", "system": "other", "answer": "$16.5 billion", "run_key": {}}
    with (tmp_path / "results.jsonl").open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    summary = judge_run(tmp_path, [EXAMPLE], ["sys", "other"], _context(model))
    assert (summary.asked, model.calls, summary.cost["llm_calls"]) == (2, 1, 1)
    verdicts = read_judgments(tmp_path)
    assert verdicts[("q1", "sys")]["judge"] == verdicts[("q1", "other")]["judge"]


@pytest.mark.parametrize(
    "reason", ["no", "Extra detail is fine unless it contradicts the reference"]
)
def test_a_reason_that_says_nothing_is_repaired(reason: str) -> None:
    model = ScriptedJudge(replies=[_verdict(True, reason), _verdict(False, "16,525 vs 15,134")])
    verdict = Judge(_context(model)).verdict(QUESTION, EXAMPLE.answers, "15,134", CostMeter())
    assert (verdict.decided_by, verdict.correct, model.calls) == ("llm", False, 2)


def test_a_dead_server_is_given_up_on_after_a_few_failures() -> None:
    model = TimingOut()
    judge = Judge(_context(model))  # one retry per call
    verdicts = [
        judge.verdict(QUESTION, EXAMPLE.answers, f"{n} million", CostMeter()) for n in range(5)
    ]
    assert model.calls == 3 * 2  # three calls with their retry, then no more
    assert {v.decided_by for v in verdicts} == {"offline-fallback"}
    assert "not asked" in verdicts[-1].reason
