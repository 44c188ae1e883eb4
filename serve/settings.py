"""What one server process serves: its indices, the eval runs folder and the access token."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from tools.errors import ConfigError
from tools.loopback import is_loopback

INDEX_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
TOKEN_CHARS = re.compile(r"^[A-Za-z0-9._~+/=-]+$")
MAX_INDICES = 4
"""Indices one server holds: `tools.corpus_index.open_index` keeps four open, and an agent run
reopens its index through it, so a fifth would be reloaded run after run."""


@dataclass(frozen=True)
class ServedIndexSpec:
    """One index of the server: the name requests pick it by (`?index=NAME`) and its folder."""

    name: str
    path: Path

    @classmethod
    def parse(cls, option: str | Path) -> ServedIndexSpec:
        """Read an `--index` value, `DIR` or `NAME=DIR` (default name: the folder's name).

        Raises:
            ConfigError: If the name has characters other than letters, digits, `_.-`.
        """
        text = str(option)
        name, sep, folder = text.partition("=")
        if not sep or not INDEX_NAME.match(name):  # a bare folder (which may hold a "=")
            name, folder = Path(text).resolve().name, text
        if not INDEX_NAME.match(name):
            raise ConfigError(
                f"--index {text}: name the index, NAME=DIR, with letters, digits, `_`, `.` "
                "or `-` (at most 64)"
            )
        return cls(name, Path(folder))


@dataclass(frozen=True)
class ServeSettings:
    """The indices a server reads (the first is the default), its runs folder and its token."""

    indices: tuple[ServedIndexSpec, ...]
    runs_dir: Path | None = None
    """Folder of `fif eval` output folders to browse (None: the Evals tab is empty)."""
    token: str | None = None
    host: str = "127.0.0.1"
    allowed_hosts: tuple[str, ...] = ()
    """Host names the server answers under besides loopback and the bind address."""
    tls: bool = False
    """Whether uvicorn serves HTTPS itself (`--ssl-certfile`)."""
    runs_per_client: int = 4
    """Runs one client address may have going at once (serve.quota)."""

    def warnings(self) -> list[str]:
        """Return what is unsafe but allowed: a token sent in clear to another machine."""
        if self.token and not self.tls and not is_loopback(self.host):
            return [
                f"--host {self.host} serves plain HTTP: the token travels in clear; put a "
                "TLS proxy in front or pass --ssl-certfile and --ssl-keyfile"
            ]
        return []

    def checked(self) -> ServeSettings:
        """Return the settings with resolved folders, refusing unsafe or missing ones.

        Raises:
            ConfigError: If the host is not loopback and no token is set, a folder is missing,
                or two indices share a name.
        """
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(
                f"--host {self.host} serves other machines; set --token (or FIF_SERVE_TOKEN) "
                "so every request must carry it, or bind to 127.0.0.1"
            )
        if self.token is not None and len(self.token) < 16:
            raise ConfigError("--token is too short: use at least 16 characters")
        if self.token is not None and not TOKEN_CHARS.match(self.token):
            raise ConfigError(
                "--token may hold only letters, digits and -._~+/= (it travels in a cookie)"
            )
        if self.runs_dir is not None and not self.runs_dir.is_dir():
            raise ConfigError(f"--runs {self.runs_dir}: no such folder (a `fif eval --out` folder)")
        runs = self.runs_dir.resolve() if self.runs_dir is not None else None
        return replace(self, indices=_checked_indices(self.indices), runs_dir=runs)


def _checked_indices(indices: tuple[ServedIndexSpec, ...]) -> tuple[ServedIndexSpec, ...]:
    if not indices:
        raise ConfigError("give at least one --index DIR (a `fif build` folder)")
    if len(indices) > MAX_INDICES:
        raise ConfigError(f"{len(indices)} --index options: one server holds at most {MAX_INDICES}")
    names = [spec.name for spec in indices]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ConfigError(
            f"two indices are named {', '.join(twice)}; name them apart with --index NAME=DIR"
        )
    for spec in indices:
        if not spec.path.is_dir():
            raise ConfigError(f"--index {spec.path}: no such folder; run `fif build` first")
    return tuple(ServedIndexSpec(spec.name, spec.path.resolve()) for spec in indices)
