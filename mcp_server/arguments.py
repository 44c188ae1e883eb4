"""Turn a tool call's rejected arguments into one line naming each argument and what it allows.

The SDK validates arguments against each tool's input schema and reports pydantic's own
text (a block with an errors.pydantic.dev link); an assistant, or a person reading its
transcript, needs the argument, the value it sent and the allowed range, read here from
the same JSON schema the client was given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

SHOWN_VALUE_CHARS = 60
"""A rejected value is shown up to this many characters of its repr."""


def allowed(schema: Mapping[str, Any]) -> str:
    """Describe what one argument's JSON schema accepts, e.g. `an integer from 1 to 50`."""
    if "enum" in schema:
        return "one of " + ", ".join(str(choice) for choice in schema["enum"])
    kind = schema.get("type")
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind == "integer":
        if low is not None and high is not None:
            return f"an integer from {low} to {high}"
        return f"an integer of at least {low}" if low is not None else "an integer"
    if kind == "string":
        shortest, longest = schema.get("minLength", 0), schema.get("maxLength")
        most = f" of at most {longest} characters" if longest is not None else ""
        if shortest == 1:
            return "a non-empty string" + most
        return f"a string of at least {shortest} characters" if shortest else "a string" + most
    if kind == "boolean":
        return "true or false"
    return f"a {kind}" if kind else "a valid value"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else text[: SHOWN_VALUE_CHARS - 1] + "…"


def argument_error(tool: str, input_schema: Mapping[str, Any], error: ValidationError) -> str:
    """Return one line for a tool's rejected arguments: each one, what it allows, what it got."""
    properties = input_schema.get("properties", {})
    problems = []
    for item in error.errors():
        name = ".".join(str(part) for part in item["loc"])
        top = str(item["loc"][0]) if item["loc"] else name
        if top not in properties:  # not an argument of the schema: pydantic's words
            problems.append(f"argument {name!r}: {item['msg']}")
            continue
        wanted = allowed(properties[top])
        if item["type"] == "missing":
            problems.append(f"argument {name!r} is required: {wanted}")
        else:
            problems.append(f"argument {name!r} must be {wanted} (got {_shown(item['input'])})")
    return f"{tool}: " + "; ".join(problems)
