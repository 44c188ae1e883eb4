"""Structured LLM calls: JSON-schema output, validation, repair, bounded retries with backoff.

A call either returns a validated pydantic object or raises LLMFailure; callers then use
their offline decision and record the fallback. Every attempt is metered.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from state.context import Context
from tools.chat_models import cut_off_errors, load_chat_model, transient_errors
from tools.cost import CostMeter
from tools.local_routes import local_route

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

REPAIR_PROMPT = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with ONLY a JSON object that matches the schema. No prose, no markdown."
)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


class LLMFailure(Exception):
    """The model gave no usable answer within the retry budget."""


class NotRouted(LLMFailure):
    """The backend leaves this decision to its offline twin (tools.local_routes): no failure."""


def extract_json(text: str) -> str:
    """Pull the JSON object out of a reply: drop code fences, prose around it, trailing commas."""
    text = _FENCE.sub("", text.strip())
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        text = text[start : end + 1]
    return _TRAILING_COMMA.sub(r"\1", text)


def parse_reply(schema: type[T], content: Any, validate: Callable[[T], None] | None = None) -> T:
    """Parse and validate a reply's content; raises ValueError with a short reason."""
    if isinstance(content, list):  # content blocks
        content = "".join(
            part.get("text", "") if isinstance(part, dict) else str(part) for part in content
        )
    try:
        parsed = schema.model_validate(json.loads(extract_json(str(content))))
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err.msg} at column {err.colno})") from err
    except ValidationError as err:
        first = err.errors()[0]
        location = ".".join(str(p) for p in first["loc"]) or "object"
        raise ValueError(f"schema mismatch at {location}: {first['msg']}") from err
    if validate is not None:
        validate(parsed)
    return parsed


@dataclass
class StructuredCaller:
    """Call one chat model for schema-shaped answers."""

    model: Any
    model_name: str
    retries: int = 2
    backoff_s: float = 1.0
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    local_routes: bool = False
    """Ask the model only the decisions `tools.local_routes` gives it, with their reply caps."""

    def call(
        self,
        schema: type[T],
        system: str,
        user: str | Sequence[dict[str, Any]],
        meter: CostMeter,
        validate: Callable[[T], None] | None = None,
    ) -> T:
        """Return a validated answer, repairing and retrying; raise LLMFailure when out of tries."""
        from langchain_core.messages import HumanMessage, SystemMessage

        messages: list[Any] = [SystemMessage(system), HumanMessage(user)]  # type: ignore[arg-type]
        request = self._request(schema)
        problem = "no attempt made"
        for attempt in range(self.retries + 1):
            try:
                with meter.timed("llm"):
                    reply = self.model.invoke(messages, **request)
            except transient_errors() as err:
                meter.llm_calls += 1  # a failed attempt still counts against the call budget
                problem = f"{type(err).__name__}: {err}"
                logger.warning(
                    "LLM call failed (%s), attempt %d/%d", problem, attempt + 1, self.retries + 1
                )
                self._sleep(attempt)
                continue
            except cut_off_errors() as err:
                self._meter_completion(getattr(err, "completion", None), meter)
                problem = f"the reply was cut off ({type(err).__name__})"
                logger.warning("LLM reply unusable (%s), asking for a shorter one", problem)
                repair = REPAIR_PROMPT.format(error=f"{problem}; keep it short")
                messages = [*messages, HumanMessage(repair)]
                continue
            self._meter(reply, meter)
            try:
                return parse_reply(schema, reply.content, validate)
            except ValueError as err:
                problem = str(err)
                logger.warning("LLM reply unusable (%s), asking for a repair", problem)
                messages = [*messages, reply, HumanMessage(REPAIR_PROMPT.format(error=problem))]
        raise LLMFailure(
            f"{self.model_name}: no valid answer after {self.retries + 1} attempts ({problem})"
        )

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

    def _sleep(self, attempt: int) -> None:
        if self.backoff_s > 0:
            time.sleep(self.backoff_s * (2**attempt) * (0.5 + random.random() / 2))

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


def caller_for(context: Context, max_tokens: int | None = None) -> StructuredCaller:
    """Return a structured caller of the context's chat model (the model itself is cached).

    `max_tokens` caps each reply, for models that may loop until their context is full.
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
        local_routes=context.backend == "local",
    )
