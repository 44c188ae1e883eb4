"""Whether an LLM server answered lately: one unreachable server is reported once, not per call.

A run asks the model for many decisions; when its server refuses connections, asking again
for each decision (with retries and backoff) only adds warnings and wait. The first call
that finds the server unreachable marks it for `UNREACHABLE_FOR_S`; calls in that window
fall back to their offline twins at once, and a successful reply clears the mark.
"""

from __future__ import annotations

import logging
import os
import threading
import time

logger = logging.getLogger(__name__)

UNREACHABLE_FOR_S = 60.0
DEFAULT_ENDPOINT = "the OpenAI API"

_lock = threading.Lock()
_down: dict[str, float] = {}
"""Endpoint -> when (time.monotonic) it was last found unreachable."""


def endpoint_of(base_url: str | None) -> str:
    """Return the server a chat model talks to: its base URL, the env's, or OpenAI's API."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_ENDPOINT


def mark_unreachable(endpoint: str) -> bool:
    """Record that the endpoint refused a connection; True if it was not marked already."""
    with _lock:
        fresh = not _marked(endpoint)
        _down[endpoint] = time.monotonic()
        return fresh


def report_unreachable(endpoint: str, error: BaseException) -> None:
    """Mark the endpoint unreachable; warn only when it was not marked already."""
    if mark_unreachable(endpoint):
        logger.warning(
            "LLM server %s is unreachable (%s): decisions fall back to their offline twins "
            "for %.0f s; `--strict-backend` makes this an error",
            endpoint,
            error,
            UNREACHABLE_FOR_S,
        )


def is_unreachable(endpoint: str) -> bool:
    """Tell whether the endpoint was found unreachable within the last UNREACHABLE_FOR_S."""
    with _lock:
        return _marked(endpoint)


def mark_reachable(endpoint: str) -> None:
    """Clear the endpoint's mark after it answered."""
    with _lock:
        _down.pop(endpoint, None)


def _marked(endpoint: str) -> bool:
    since = _down.get(endpoint)
    return since is not None and time.monotonic() - since < UNREACHABLE_FOR_S


def unreachable_errors() -> tuple[type[BaseException], ...]:
    """Return the exception types of a server that cannot be reached (not of a slow one)."""
    errors: list[type[BaseException]] = [ConnectionRefusedError]
    try:
        import httpx
        import openai
    except ImportError:  # the offline backend needs neither
        return tuple(errors)
    return (*errors, openai.APIConnectionError, httpx.ConnectError)


def is_unreachable_error(error: BaseException) -> bool:
    """Tell whether an error says the server is unreachable (a timeout does not)."""
    timeouts: tuple[type[BaseException], ...] = (TimeoutError,)
    try:
        import openai

        timeouts = (*timeouts, openai.APITimeoutError)
    except ImportError:
        pass
    return isinstance(error, unreachable_errors()) and not isinstance(error, timeouts)
