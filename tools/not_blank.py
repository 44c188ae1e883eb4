"""One check for the text fields of pydantic models: the text must hold more than white space."""

from __future__ import annotations

from collections.abc import Callable


def not_blank(message: str, *, strip: bool = False) -> Callable[[str], str]:
    """Return a field validator that refuses blank text, for `field_validator(...)(...)`.

    Args:
        message: The error for blank text, as the caller (or the model, on a retry) reads it.
        strip: Keep the text stripped of surrounding white space (else as given).
    """

    def check(value: str) -> str:
        if not value.strip():
            raise ValueError(message)
        return value.strip() if strip else value

    return check
