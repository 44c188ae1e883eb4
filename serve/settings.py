"""What one server process serves: the index, the eval runs folder and the access token."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from tools.errors import ConfigError

LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """Tell whether a bind address only accepts connections from this machine."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServeSettings:
    """The folders a server reads and the token it demands (None: no token)."""

    index_dir: Path
    runs_dir: Path | None = None
    """Folder of `fif eval` output folders to browse (None: the Evals tab is empty)."""
    token: str | None = None
    host: str = "127.0.0.1"

    def checked(self) -> ServeSettings:
        """Return the settings with resolved folders, refusing unsafe or missing ones.

        Raises:
            ConfigError: If the host is not loopback and no token is set, or a folder is missing.
        """
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(
                f"--host {self.host} serves other machines; set --token (or FIF_SERVE_TOKEN) "
                "so every request must carry it, or bind to 127.0.0.1"
            )
        if self.token is not None and len(self.token) < 16:
            raise ConfigError("--token is too short: use at least 16 characters")
        if not self.index_dir.is_dir():
            raise ConfigError(f"--index {self.index_dir}: no such folder; run `fif build` first")
        if self.runs_dir is not None and not self.runs_dir.is_dir():
            raise ConfigError(f"--runs {self.runs_dir}: no such folder (a `fif eval --out` folder)")
        runs = self.runs_dir.resolve() if self.runs_dir is not None else None
        return ServeSettings(self.index_dir.resolve(), runs, self.token, self.host)
