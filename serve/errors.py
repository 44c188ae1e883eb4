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
