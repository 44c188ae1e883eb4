"""Judge a run's answers once: verdicts go to `OUT/judgments.jsonl`, reused on a re-run.

A verdict line is keyed by (qid, system) like a result line and stores what it judged: the
judge model, the prompt version and a digest of question, gold answers and prediction. A
re-run asks the judge only for answers with no verdict under that key (a new answer, model
or prompt), and again for those whose call had failed (stored with an `error`, judged by
number matching meanwhile). Offline, no verdict is written: the report's number matching
decides, and the summary carries the judge's `problem` for the CLI to print.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.datasets.questions import EvalExample
from evals.judge import Judge, answer_digest
from evals.prompts import JUDGE_VERSION
from evals.results_log import KEY_FIELD, RESULTS_FILE, Key, ResultsLog, is_complete, read_latest
from state.context import Context
from tools.cost import CostMeter

logger = logging.getLogger(__name__)

JUDGMENTS_FILE = "judgments.jsonl"
JUDGE_FIELD = "judge"
"""The field of a judgments.jsonl line holding the verdict (`Judgment.as_dict`)."""


@dataclass(frozen=True)
class JudgeSummary:
    """What a judge pass did."""

    path: Path
    model: str
    asked: int = 0
    """Answers sent to the judge by this call."""
    reused: int = 0
    """Answers whose stored verdict still applied."""
    fallbacks: int = 0
    """Answers judged by number matching because the judge's call failed."""
    problem: str | None = None
    """Why no LLM judged (offline backend, missing key or model), if so."""
    cost: dict[str, float] = field(default_factory=dict)


def verdict_key(model: str, example: EvalExample, prediction: str | None) -> dict[str, str]:
    """Return the key a verdict is stored under: judge model, prompt version, answer digest."""
    digest = answer_digest(example.question, example.answers, prediction)
    return {"judge": model, "prompt": JUDGE_VERSION, "answer": digest}


def judge_run(
    out_dir: Path,
    examples: Sequence[EvalExample],
    systems: Sequence[str],
    context: Context,
    workers: int = 1,
) -> JudgeSummary:
    """Judge every current answer of the systems on the examples that has no verdict yet."""
    judge = Judge(context)
    path = out_dir / JUDGMENTS_FILE
    if judge.caller is None:
        return JudgeSummary(path, judge.model, problem=judge.problem)
    log = ResultsLog(path)
    todo, reused = _todo(read_latest(out_dir / RESULTS_FILE), log.done(), examples, systems, judge)
    logger.info(
        "judge %s: %d answer(s) to judge, %d already judged", judge.model, len(todo), reused
    )
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
        costs = list(pool.map(lambda item: _judge_one(judge, log, *item), todo))
    total: dict[str, float] = {}
    for cost in costs:
        for name, value in cost.items():
            total[name] = total.get(name, 0.0) + value
    fallbacks = int(total.get("fallbacks", 0))
    return JudgeSummary(path, judge.model, len(todo), reused, fallbacks, None, total)


def _todo(
    results: Mapping[Key, Mapping[str, Any]],
    done: Mapping[Key, Any],
    examples: Sequence[EvalExample],
    systems: Sequence[str],
    judge: Judge,
) -> tuple[list[tuple[EvalExample, str, str | None, dict[str, str]]], int]:
    """Return the answers that need a verdict, and how many have a current one."""
    todo = []
    reused = 0
    for example in examples:
        for name in systems:
            line = results.get((example.qid, name))
            if line is None or not is_complete(line) or "answer" not in line:
                continue
            key = verdict_key(judge.model, example, line["answer"])
            if done.get((example.qid, name)) == key:
                reused += 1
            else:
                todo.append((example, name, line["answer"], key))
    return todo, reused


def _judge_one(
    judge: Judge,
    log: ResultsLog,
    example: EvalExample,
    name: str,
    prediction: str | None,
    key: dict[str, str],
) -> dict[str, float]:
    """Judge one answer and append its verdict line; return its cost (fallbacks counted)."""
    meter = CostMeter()
    judgment = judge.verdict(example.question, example.answers, prediction, meter)
    record: dict[str, Any] = {
        "qid": example.qid,
        "system": name,
        KEY_FIELD: key,
        JUDGE_FIELD: judgment.as_dict(),
    }
    if judgment.decided_by == "offline-fallback":
        meter.fallbacks += 1
        record["error"] = judgment.reason  # not done: the next run asks the judge again
    record["cost"] = meter.as_dict()
    log.append(record, replace=True)
    return record["cost"]


def read_judgments(out_dir: Path) -> dict[Key, dict[str, Any]]:
    """Return the latest verdict line per (qid, system) of an out dir ({} when none)."""
    return read_latest(out_dir / JUDGMENTS_FILE)
