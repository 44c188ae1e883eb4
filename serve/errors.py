"""Errors of the server's requests, each mapped to its HTTP status by `serve.app`."""

from __future__ import annotations

from tools.errors import ConfigError


class OutsideFolderError(ConfigError):
    """A requested path does not name a file inside the served folder (HTTP 403)."""


class NotFoundError(ConfigError):
    """A requested component, thread, run or file does not exist (HTTP 404)."""


class ConflictError(ConfigError):
    """A request clashes with a run in progress (HTTP 409)."""


class TooManyRunsError(ConfigError):
    """A client already has as many runs going as it may (HTTP 429)."""


class FieldError(ConfigError):
    """One field of a request holds a value the server refuses (HTTP 400, naming the field).

    The page shows the message beside that field.
    """

    def __init__(self, field: str, message: str) -> None:
        """Keep the field's name with the message."""
        super().__init__(f"{field}: {message}")
        self.field = field
