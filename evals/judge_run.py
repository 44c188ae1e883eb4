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
from state.settings import RunSettings
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
    context: RunSettings,
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
    groups: dict[str, list[_Item]] = {}
    for item in todo:  # systems that gave the same answer share one verdict (and one call)
        groups.setdefault(item[3]["answer"], []).append(item)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
        costs = list(pool.map(lambda items: _judge_one(judge, log, items), groups.values()))
    total: dict[str, float] = {}
    for cost in costs:
        for name, value in cost.items():
            total[name] = total.get(name, 0.0) + value
    fallbacks = int(total.get("fallbacks", 0))
    return JudgeSummary(path, judge.model, len(todo), reused, fallbacks, None, total)


_Item = tuple[EvalExample, str, str | None, dict[str, str]]
"""An answer to judge: its question, the system, the answer and the key of its verdict."""


def _todo(
    results: Mapping[Key, Mapping[str, Any]],
    done: Mapping[Key, Any],
    examples: Sequence[EvalExample],
    systems: Sequence[str],
    judge: Judge,
) -> tuple[list[_Item], int]:
    """Return the answers that need a verdict, and how many have a current one."""
    todo: list[_Item] = []
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


def _judge_one(judge: Judge, log: ResultsLog, items: list[_Item]) -> dict[str, float]:
    """Judge one answer, append its verdict for every system that gave it; return the cost."""
    example, _, prediction, key = items[0]
    meter = CostMeter()
    judgment = judge.verdict(example.question, example.answers, prediction, meter)
    if judgment.decided_by == "offline-fallback":
        meter.fallbacks += 1
    for index, (asked, name, _, _) in enumerate(items):
        record: dict[str, Any] = {
            "qid": asked.qid,
            "system": name,
            KEY_FIELD: key,
            JUDGE_FIELD: judgment.as_dict(),
            "cost": meter.as_dict() if index == 0 else {},  # one call, counted once
        }
        if judgment.decided_by == "offline-fallback":
            record["error"] = judgment.reason  # not done: the next run asks the judge again
        log.append(record, replace=True)
    return meter.as_dict()


def read_judgments(out_dir: Path) -> dict[Key, dict[str, Any]]:
    """Return the latest verdict line per (qid, system) of an out dir ({} when none)."""
    return read_latest(out_dir / JUDGMENTS_FILE)
