"""`fif mcp` refuses what it cannot serve before it starts: no index, a public host, a typo."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_server.cli import _check_host
from tools.errors import ConfigError

CliRun = Callable[..., tuple[object, str, str]]


def test_a_missing_index_fails_at_startup_with_one_line(
    run_fif_main: CliRun, tmp_path: Path
) -> None:
    code, out, err = run_fif_main("mcp", "--index", str(tmp_path / "nowhere"))
    assert code == 2 and out == ""
    assert "error:" in err and "fif build" in err


def test_a_public_host_needs_allow_remote(run_fif_main: CliRun, mini_index: Path) -> None:
    args = ("mcp", "--index", str(mini_index), "--transport", "http", "--host", "0.0.0.0")
    code, out, err = run_fif_main(*args)
    assert code == 2 and "--allow-remote" in err and out == ""


def test_an_unknown_transport_is_named(run_fif_main: CliRun, mini_index: Path) -> None:
    code, _, err = run_fif_main("mcp", "--index", str(mini_index), "--transport", "sse")
    assert code == 2 and "unknown --transport 'sse'; use stdio or http" in err


def test_a_malformed_ask_setting_fails_at_startup(run_fif_main: CliRun, mini_index: Path) -> None:
    code, _, err = run_fif_main("mcp", "--index", str(mini_index), "--backend", "oracle")
    assert code == 2 and "backend" in err


@pytest.mark.parametrize(
    ("host", "allow_remote", "refused"),
    [
        ("127.0.0.1", False, False),
        ("::1", False, False),
        ("localhost", False, False),
        ("127.0.0.2", False, False),
        ("0.0.0.0", False, True),
        ("192.168.1.5", False, True),
        ("myhost.example", False, True),
        ("0.0.0.0", True, False),
    ],
)
def test_loopback_check(host: str, allow_remote: bool, refused: bool) -> None:
    if refused:
        with pytest.raises(ConfigError, match="not a loopback address"):
            _check_host(host, allow_remote)
    else:
        _check_host(host, allow_remote)


def test_a_missing_sdk_names_the_install_from_the_checkout(
    run_fif_main: CliRun, mini_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp_server.server", None)  # importing it now fails
    code, _, err = run_fif_main("mcp", "--index", str(mini_index))
    assert code == 2 and "pip install -c constraints.txt -e '.[mcp]'" in err
    assert "fif[mcp]" not in err  # PyPI's `fif` is another project
