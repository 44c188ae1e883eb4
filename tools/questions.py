"""The check every question passes as it enters a run: a non-empty string.

The CLI, the Python API (`graph_agent.api.ask`, every system's run) and FiF's first node
call it, so an empty question stops with one clear message instead of an empty ranking
(or, in Studio, an internal error).
"""

from __future__ import annotations

from tools.errors import InputError


def require_question(question: object, field: str = "question", example: str = "") -> str:
    """Return the question stripped of surrounding space.

    `example` is a call that works, shown after the fix (a CLI command names itself).

    Raises:
        InputError: If it is not a string or holds only whitespace; the message names the field.
    """
    if not isinstance(question, str):
        raise InputError(
            f"{field} must be a string, got {type(question).__name__}: give the question to ask"
        )
    text = question.strip()
    if not text:
        shown = f", e.g. {example}" if example else ""
        raise InputError(f"{field} is empty: give the question to ask{shown}")
    return text
