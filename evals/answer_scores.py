"""Score a system's answers: EM and F1 (SQuAD), the share answered and the share correct.

Correct comes from the LLM judge's stored verdict when the report is asked to use it and one
applies to the current answer (`evals.judge_run`), else from offline matching
(`evals.answer_match`: numbers within 1%, yes/no, short text). Each answer's deciding rule
is counted, so a report can say how its Correct column was decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from evals.answer_match import match_answer
from evals.datasets.questions import EvalExample
from evals.judge_run import JUDGE_FIELD, verdict_key
from evals.metrics import exact_match, pool, token_f1
from evals.results_log import KEY_FIELD

QA_KEYS = ("EM", "F1")
ANSWER_KEYS = ("Answered", "Correct")
"""Share of questions with an answer (not empty, not a refusal), and share answered correctly."""
JUDGE_USED = ("llm", "rule")
"""Stored verdicts that decide Correct; `offline-fallback` ones leave it to number matching."""


def answer_scores(
    example: EvalExample, line: Mapping[str, Any], judgment: Mapping[str, Any] | None = None
) -> tuple[dict[str, float], str]:
    """Return one answer's EM, F1, Answered and Correct, and the rule that decided Correct.

    Args:
        example: The question with its gold answers (at least one).
        line: Its result line (`answer` may be missing or None).
        judgment: Its judgments.jsonl line, if the judge is to be used.
    """
    prediction = line.get("answer") or ""
    matched = match_answer(prediction, example.answers, example.question)
    scores = {
        "EM": exact_match(prediction, example.answers),
        "F1": token_f1(prediction, example.answers),
        "Answered": float(matched.answered),
        "Correct": float(matched.correct),
    }
    verdict = _applicable(example, prediction, judgment)
    if verdict is None:
        return scores, matched.method
    if verdict.get("decided_by") in JUDGE_USED:
        scores["Correct"] = float(bool(verdict.get("correct")))
        return scores, "judge" if verdict.get("decided_by") == "llm" else matched.method
    return scores, "judge-fallback"


def _applicable(
    example: EvalExample, prediction: str, judgment: Mapping[str, Any] | None
) -> Mapping[str, Any] | None:
    """Return the stored verdict if it was given on this very question, gold and answer."""
    if not judgment or not isinstance(judgment.get(JUDGE_FIELD), Mapping):
        return None
    verdict: Mapping[str, Any] = judgment[JUDGE_FIELD]
    expected = verdict_key(str(verdict.get("model", "")), example, prediction)
    return verdict if judgment.get(KEY_FIELD) == expected else None


def pooled_answers(
    scored: Sequence[tuple[EvalExample, Mapping[str, Any]]],
    judgments: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[dict[str, float], dict[str, int]]:
    """Pool answer scores over the examples with gold answers; count the deciding rules.

    Args:
        scored: (example, result line) pairs of one system.
        judgments: That system's verdict lines by qid, when the judge is to be used.

    Returns:
        EM, F1, Answered, Correct and n_qa; and how many answers each rule decided.
    """
    per_example = []
    methods: Counter[str] = Counter()
    for example, line in scored:
        if example.answers:
            scores, method = answer_scores(example, line, (judgments or {}).get(example.qid))
            per_example.append(scores)
            methods[method] += 1
    pooled = pool(per_example)
    quality = {key: pooled.get(key, 0.0) for key in (*QA_KEYS, *ANSWER_KEYS)}
    quality["n_qa"] = pooled["n"]
    return quality, dict(sorted(methods.items()))
