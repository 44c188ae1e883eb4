"""The LLM judge of answers: one structured verdict per answer, or number matching offline.

`Judge.verdict` asks the chat model (validated JSON, repair and bounded retries through
`tools.llm_calls.StructuredCaller`). An unanswered prediction is judged incorrect without a
call. When no model is configured the judge says so once and number matching decides
(`evals.answer_match`); when a call still fails after its retries, the example gets the number
match too, recorded as `decided_by="offline-fallback"` with the reason, never a crash.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from evals.answer_match import is_answered, match_answer
from evals.prompts import JUDGE_SYSTEM, JUDGE_USER, JUDGE_VERSION
from state.settings import RunSettings
from tools.cost import CostMeter
from tools.errors import FiFError
from tools.llm_calls import LLMFailure, StructuredCaller, caller_for
from tools.not_blank import not_blank

logger = logging.getLogger(__name__)

DecidedBy = Literal["llm", "rule", "offline-fallback", "offline"]
NO_LLM = (
    "--judge needs an LLM: pass --judge-backend openai (with OPENAI_API_KEY, or FIF_BASE_URL "
    "for an OpenAI-compatible server) or --judge-backend local; correct answers are decided "
    "by number matching instead"
)
JUDGE_MAX_TOKENS = 200
"""Cap on one verdict reply: a sentence of reason, no essays."""
FAILURES_BEFORE_GIVING_UP = 3
"""Failed calls in a row after which the judge stops asking (a server that is down would
otherwise cost every remaining answer its retries and timeouts)."""


class JudgeVerdict(BaseModel):
    """What the judge model must return for one answer."""

    correct: bool = Field(description="True if the candidate answer is correct.")
    reason: str = Field(min_length=1, max_length=400, description="One short sentence saying why.")

    _not_blank = field_validator("reason")(not_blank("the reason must say why", strip=True))


@dataclass(frozen=True)
class Judgment:
    """A stored verdict on one answer (a `judgments.jsonl` line holds it under `judge`)."""

    correct: bool
    reason: str
    decided_by: DecidedBy
    model: str
    prompt_version: str = JUDGE_VERSION

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON form stored per (question, system)."""
        return {
            "correct": self.correct,
            "reason": self.reason,
            "decided_by": self.decided_by,
            "model": self.model,
            "prompt_version": self.prompt_version,
        }


def answer_digest(question: str, answers: Sequence[str], prediction: str | None) -> str:
    """Return a short hash of what a verdict is about: question, gold answers, prediction."""
    payload = json.dumps([question, list(answers), prediction or ""], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _own_reason(verdict: JudgeVerdict) -> None:
    """Reject a reason that is one word or an echo of the instructions (small models copy)."""
    reason, words = verdict.reason.lower(), len(verdict.reason.split())
    if words < 2 or (words >= 4 and reason in JUDGE_SYSTEM.lower()):
        raise ValueError(f"reason {verdict.reason!r} does not say why; explain in a sentence")


class Judge:
    """Decides correct/incorrect per answer with a chat model, or by number matching."""

    def __init__(self, context: RunSettings) -> None:
        """Load the context's chat model; with none (or a broken setup) judge offline.

        Never raises for a missing model: the problem is logged once and kept in `problem`.
        """
        self.caller: StructuredCaller | None = None
        self.problem: str | None = None
        self.failures_in_a_row = 0
        if context.backend == "offline":
            self.problem = NO_LLM
        else:
            try:
                self.caller = caller_for(context, max_tokens=JUDGE_MAX_TOKENS)
            except FiFError as err:  # no key, no model file: say so and judge by numbers
                self.problem = f"the judge's model is unavailable ({err}); {NO_LLM}"
        if self.problem:
            logger.warning("%s", self.problem)

    @property
    def model(self) -> str:
        """Return the judge model's name, or "offline"."""
        return self.caller.model_name if self.caller else "offline"

    def verdict(
        self, question: str, answers: Sequence[str], prediction: str | None, meter: CostMeter
    ) -> Judgment:
        """Return the verdict on one prediction; never raises for a failing model."""
        if not is_answered(prediction):
            return Judgment(False, "no answer, or a refusal", "rule", self.model)
        if self.caller is None:
            matched = match_answer(prediction, answers, question)
            return Judgment(matched.correct, matched.reason, "offline", self.model)
        user = JUDGE_USER.format(
            question=question,
            references="\n".join(f"- {answer}" for answer in answers) or "- (none)",
            answer=prediction,
        )
        if self.failures_in_a_row >= FAILURES_BEFORE_GIVING_UP:
            problem = f"not asked: the last {self.failures_in_a_row} judge calls failed"
            return self._fallback(question, answers, prediction, problem)
        try:
            reply = self.caller.call(JudgeVerdict, JUDGE_SYSTEM, user, meter, _own_reason)
        except LLMFailure as err:
            return self._failed(question, answers, prediction, str(err))
        except Exception as err:  # a server error must not end the run; recorded per example
            return self._failed(question, answers, prediction, f"{type(err).__name__}: {err}")
        self.failures_in_a_row = 0
        return Judgment(reply.correct, reply.reason, "llm", self.model)

    def _failed(
        self, question: str, answers: Sequence[str], prediction: str | None, problem: str
    ) -> Judgment:
        self.failures_in_a_row += 1
        if self.failures_in_a_row == FAILURES_BEFORE_GIVING_UP:
            logger.warning(
                "%d judge calls failed in a row; number matching decides the remaining "
                "answers of this run (they are asked again on the next run)",
                self.failures_in_a_row,
            )
        return self._fallback(question, answers, prediction, problem)

    def _fallback(
        self, question: str, answers: Sequence[str], prediction: str | None, problem: str
    ) -> Judgment:
        logger.warning("judge failed (%s); the number match decides this answer", problem)
        matched = match_answer(prediction, answers, question)
        reason = f"judge failed ({problem}); number match: {matched.reason}"
        return Judgment(matched.correct, reason, "offline-fallback", self.model)
