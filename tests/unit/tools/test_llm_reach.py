"""An unreachable LLM server: attempts counted apart from calls, said once, strict is an error."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from graph_agent.backend_check import backend_notice, check_strict
from nodes.core.decision import LLMDecision, run_decision
from state.settings import RunSettings
from tools import llm_reach
from tools.chat_models import register_chat_model
from tools.cost import CostMeter
from tools.errors import ConfigError, ModelUnavailableError

QUESTION = "Which three physicists shared the 1903 Nobel Prize in Physics?"


class RefusingModel:
    """A chat model whose server refuses every connection; counts the attempts."""

    def __init__(self) -> None:
        self.invoked = 0

    def invoke(self, messages: Any, **kwargs: Any) -> Any:
        self.invoked += 1
        request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
        raise openai.APIConnectionError(request=request)


@pytest.fixture(autouse=True)
def fresh_marks() -> Iterator[None]:
    llm_reach._down.clear()
    yield
    llm_reach._down.clear()


def refusing_context() -> tuple[RunSettings, RefusingModel]:
    model = RefusingModel()
    spec = register_chat_model(f"refusing-{uuid.uuid4().hex[:8]}", model)
    context = RunSettings(backend="openai", chat_model=spec, llm_retries=2, llm_backoff_s=0.0)
    return context, model


def decide_once(context: RunSettings, meter: CostMeter) -> str:
    def ask(caller: Any) -> str:
        from pydantic import BaseModel

        class Reply(BaseModel):
            text: str

        return str(caller.call(Reply, "system", "user", meter).text)

    return run_decision(LLMDecision(ask, lambda: "offline"), context, meter, room=True).value


def test_an_unreachable_server_is_tried_once_and_said_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    context, model = refusing_context()
    meter = CostMeter()
    with caplog.at_level(logging.INFO):
        decisions = [decide_once(context, meter) for _ in range(5)]
    assert decisions == ["offline"] * 5
    assert model.invoked == 3  # one decision's attempts; the others do not knock again
    assert (meter.llm_calls, meter.llm_failed_attempts) == (0, 3)  # attempts are not calls
    assert (meter.fallbacks, meter.llm_unreachable) == (5, 5)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "unreachable" in warnings[0].getMessage()


def test_the_run_reports_it_once_and_strict_makes_it_an_error() -> None:
    context, _ = refusing_context()
    meter = CostMeter()
    for _ in range(3):
        decide_once(context, meter)
    cost = meter.as_dict()
    assert "unreachable: 3 decisions fell back" in str(backend_notice(context, cost))
    check_strict(context, cost, ["planner: offline fallback"], strict=False)
    with pytest.raises(ModelUnavailableError, match="--strict-backend: 3 decisions"):
        check_strict(context, cost, ["planner: offline fallback"], strict=True)
    assert backend_notice(RunSettings(), cost) is None


def test_failed_attempts_count_against_the_call_budget() -> None:
    from state.core import llm_calls

    assert llm_calls({"cost": {"llm_calls": 2, "llm_failed_attempts": 3}}) == 5


def test_a_base_url_without_a_key_is_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.chat_models import load_chat_model

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model, _ = load_chat_model(RunSettings(backend="openai", chat_model="reach-test-model"))
    assert "127.0.0.1:9" in str(model.openai_api_base)
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ConfigError) as refused:
        load_chat_model(RunSettings(backend="openai", chat_model="reach-test-model-2"))
    assert "set base_url" not in str(refused.value) and "--base-url" in str(refused.value)


def test_fif_ask_strict_backend_exits_non_zero(
    run_fif_main: Callable[..., tuple[object, str, str]],
    mini_index: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import shutil

    index = shutil.copytree(mini_index, tmp_path / "index")
    context, _ = refusing_context()
    monkeypatch.setenv("FIF_LLM_BACKOFF_S", "0")
    args = ("ask", QUESTION, "--index", str(index), "--backend", "openai")
    args += ("--chat-model", context.chat_model, "--max-steps", "1", "--strict-backend")
    code, _, err = run_fif_main(*args)
    assert code == 2 and err.count("was unreachable") == 1 and "error: --strict-backend" in err


def test_a_timeout_is_not_unreachable() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:9/")
    assert not llm_reach.is_unreachable_error(openai.APITimeoutError(request=request))
    assert llm_reach.is_unreachable_error(openai.APIConnectionError(request=request))
