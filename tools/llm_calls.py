"""Structured LLM calls: JSON-schema output, validation, repair, bounded retries with backoff.

A call either returns a validated pydantic object or raises LLMFailure; callers then use
their offline decision and record the fallback. Every attempt is metered. Retries run on
tenacity; malformed JSON is mended by json-repair; each attempt's timeout is the time the
run has left (capped by `llm_timeout_s`), so a slow server cannot hold a run past its budget.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from state.settings import RunSettings
from tools import llm_reach
from tools.chat_models import cut_off_errors, load_chat_model, transient_errors
from tools.cost import CostMeter
from tools.local_routes import local_route

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

REPAIR_PROMPT = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with ONLY a JSON object that matches the schema. No prose, no markdown."
)
MIN_CALL_SECONDS = 0.2
"""Below this much time left, a call is not started: no server answers that fast reliably."""


class LLMFailure(Exception):
    """The model gave no usable answer within the retry or time budget."""


class LLMUnreachable(LLMFailure):
    """The model's server refused the connection (now, or moments ago: tools.llm_reach)."""


class NotRouted(LLMFailure):
    """The backend leaves this decision to its offline twin (tools.local_routes): no failure."""


class _Unusable(Exception):
    """A reply that parsed badly or failed validation: asked again with a repair turn."""


class _Transient(Exception):
    """A timeout, rate limit or dropped connection: asked again after a backoff."""


def parse_reply(schema: type[T], content: Any, validate: Callable[[T], None] | None = None) -> T:
    """Parse (repairing fences, prose and broken JSON) and validate a reply's content.

    Raises:
        ValueError: With a short reason the repair prompt quotes back to the model.
    """
    if isinstance(content, list):  # content blocks
        content = "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    text = str(content).strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = json_repair.loads(text)
        # a mended reply must name a field of the schema: json-repair turns any brace
        # into an object, which a schema of defaults would otherwise accept
        if isinstance(data, dict) and not set(data) & set(schema.model_fields):
            data = None
    if not isinstance(data, dict):
        raise ValueError(f"not JSON (no object of the schema found in {text[:60]!r})")
    try:
        parsed = schema.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        location = ".".join(str(p) for p in first["loc"]) or "object"
        raise ValueError(f"schema mismatch at {location}: {first['msg']}") from err
    if validate is not None:
        validate(parsed)
    return parsed


@dataclass
class StructuredCaller:
    """Call one chat model for schema-shaped answers.

    `deadline` (a `time.monotonic()` value) is when the run's time budget ends: no attempt
    starts after it, and each attempt's timeout ends at it. `retry_notes` records every
    retry (rate limits included) for the decision's trace.
    """

    model: Any
    model_name: str
    retries: int = 2
    backoff_s: float = 1.0
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    timeout_s: float = 60.0
    deadline: float | None = None
    retry_notes: list[str] = field(default_factory=list)
    local_routes: bool = False
    """Ask the model only the decisions `tools.local_routes` gives it, with their reply caps."""
    endpoint: str = llm_reach.DEFAULT_ENDPOINT
    """The server the model talks to, as `tools.llm_reach` names it."""

    def call(
        self,
        schema: type[T],
        system: str,
        user: str | Sequence[dict[str, Any]],
        meter: CostMeter,
        validate: Callable[[T], None] | None = None,
    ) -> T:
        """Return a validated answer, repairing and retrying; raise LLMFailure when out of tries.

        Raises:
            LLMUnreachable: If the server refused the connection, now or moments ago.
            LLMFailure: If no attempt gave a usable reply.
        """
        from langchain_core.messages import HumanMessage, SystemMessage

        if llm_reach.is_unreachable(self.endpoint):
            raise LLMUnreachable(f"{self.endpoint} was unreachable moments ago; not asked")
        messages: list[Any] = [SystemMessage(system), HumanMessage(user)]  # type: ignore[arg-type]
        request = self._request(schema)
        retrying = Retrying(
            stop=stop_after_attempt(self.retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type((_Transient, _Unusable)),
            sleep=lambda seconds: time.sleep(seconds),  # looked up late: tests patch time.sleep
            before_sleep=lambda state: self._note_retry(state, meter),
            reraise=True,
        )
        try:
            answer = retrying(self._attempt, schema, request, messages, meter, validate)
        except (_Transient, _Unusable) as err:
            attempts = retrying.statistics.get("attempt_number", self.retries + 1)
            if _unreachable(err):
                llm_reach.report_unreachable(self.endpoint, err)
                raise LLMUnreachable(f"{self.endpoint} is unreachable ({err})") from err
            raise LLMFailure(
                f"{self.model_name}: no valid answer after {attempts} attempts ({err})"
            ) from err
        llm_reach.mark_reachable(self.endpoint)
        return answer

    def seconds_left(self) -> float | None:
        """Return the time left before the deadline (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _attempt(
        self,
        schema: type[T],
        request: dict[str, Any],
        messages: list[Any],
        meter: CostMeter,
        validate: Callable[[T], None] | None,
    ) -> T:
        """Make one call; raise _Transient or _Unusable (after adding the repair turn)."""
        from langchain_core.messages import HumanMessage

        timeout = self._timeout()
        try:
            with meter.timed("llm"):
                reply = self.model.invoke(messages, **request, timeout=timeout)
        except transient_errors() as err:
            meter.llm_failed_attempts += 1  # counted against the call budget, not as a call
            if _is_rate_limit(err):
                meter.rate_limited += 1
            raise _Transient(f"{type(err).__name__}: {err}") from err
        except cut_off_errors() as err:
            self._meter_completion(getattr(err, "completion", None), meter)
            problem = f"the reply was cut off ({type(err).__name__})"
            messages.append(HumanMessage(REPAIR_PROMPT.format(error=f"{problem}; keep it short")))
            raise _Unusable(problem) from err
        self._meter(reply, meter)
        try:
            return parse_reply(schema, reply.content, validate)
        except ValueError as err:
            messages.extend([reply, HumanMessage(REPAIR_PROMPT.format(error=str(err)))])
            raise _Unusable(str(err)) from err

    def _request(self, schema: type[BaseModel]) -> dict[str, Any]:
        """Return the call's options: the JSON schema to fill, and the local route's reply cap.

        For the local backend the schema is the route's bounded one (tools.local_routes).

        Raises:
            NotRouted: If the local backend leaves this decision to its offline twin.
        """
        decision, json_schema = schema.__name__, schema.model_json_schema()
        limits: dict[str, Any] = {}
        if self.local_routes:
            route = local_route(decision)
            if not route.to_model:
                raise NotRouted(
                    f"{self.model_name} leaves {decision} to its offline twin: {route.why}"
                )
            json_schema = route.reply_schema(json_schema)
            if route.max_tokens is not None:
                limits["max_tokens"] = route.max_tokens
        schema_format = {"name": decision, "schema": json_schema, "strict": False}
        return {"response_format": {"type": "json_schema", "json_schema": schema_format}, **limits}

    def _timeout(self) -> float:
        """Return this attempt's timeout, or raise LLMFailure when the time budget is spent."""
        left = self.seconds_left()
        if left is None:
            return self.timeout_s
        if left < MIN_CALL_SECONDS:
            raise LLMFailure(f"{self.model_name}: the run's time budget is spent")
        return min(self.timeout_s, left)

    def _wait(self, state: RetryCallState) -> float:
        """Back off (doubling, with jitter) after a transient error; repair at once."""
        outcome = state.outcome
        if outcome is None or not isinstance(outcome.exception(), _Transient):
            return 0.0
        if self.backoff_s <= 0:
            return 0.0
        backoff = wait_exponential(multiplier=self.backoff_s) + wait_random(0, self.backoff_s / 2)
        delay = float(backoff(state))
        left = self.seconds_left()
        return delay if left is None else max(0.0, min(delay, left))

    def _note_retry(self, state: RetryCallState, meter: CostMeter) -> None:
        error = state.outcome.exception() if state.outcome else None
        meter.llm_retries += 1
        note = f"attempt {state.attempt_number} retried: {error}"
        self.retry_notes.append(note)
        quiet = error is not None and _unreachable(error)  # reported once by the caller
        logger.log(logging.INFO if quiet else logging.WARNING, "LLM %s %s", self.model_name, note)

    def _meter_completion(self, completion: Any, meter: CostMeter) -> None:
        """Count a call whose reply was refused, from the raw completion's usage."""
        usage = getattr(completion, "usage", None)
        meter.add_llm_usage(
            self.model_name,
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
            self.prices,
        )

    def _meter(self, reply: Any, meter: CostMeter) -> None:
        usage = getattr(reply, "usage_metadata", None) or {}
        meter.add_llm_usage(
            self.model_name,
            int(usage.get("input_tokens", 0)),
            int(usage.get("output_tokens", 0)),
            self.prices,
        )


def _unreachable(error: BaseException) -> bool:
    cause = error.__cause__ or error
    return isinstance(error, _Transient) and llm_reach.is_unreachable_error(cause)


def _is_rate_limit(error: BaseException) -> bool:
    return getattr(error, "status_code", None) == 429 or type(error).__name__ == "RateLimitError"


def caller_for(
    context: RunSettings, max_tokens: int | None = None, deadline: float | None = None
) -> StructuredCaller:
    """Return a structured caller of the context's chat model (the model itself is cached).

    `max_tokens` caps each reply, for models that may loop until their context is full;
    `deadline` (monotonic seconds) is when the run's time budget ends.
    """
    model, name = load_chat_model(context)
    if max_tokens is not None:
        model = model.bind(max_tokens=max_tokens)
    return StructuredCaller(
        model,
        name,
        context.llm_retries,
        context.llm_backoff_s,
        dict(context.price_table),
        context.llm_timeout_s,
        deadline,
        local_routes=context.backend == "local",
        endpoint=llm_reach.endpoint_of(context.base_url) if context.backend == "openai" else name,
    )
