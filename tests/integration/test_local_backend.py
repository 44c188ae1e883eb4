"""The LLM backends end to end on a sample question: in-process SmolLM2, OpenAI-compatible servers.

SmolLM2-135M is too small to reason well, but grammar-constrained decoding (the JSON schema
sent as `response_format`) keeps its replies to the asked JSON. What these tests hold the graph
to is that every reply, good or bad, ends as a recorded decision (the LLM's or an offline
fallback), never as a crash; that the LLM itself decided something (a traversal or a
verdict), not only fallbacks; and that the cost is metered. The local backend asks its model
only the decisions `tools.local_routes` gives it, and llama.cpp stays quiet.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import urllib.request
from pathlib import Path

import pytest

from evals.datasets.questions import EvalExample
from graph_agent.api import ask
from graph_agent.results import RunResult
from state.fif_context import FiFContext
from tools.chat_models import _local_server, packaged_smollm2

pytestmark = pytest.mark.integration
logger = logging.getLogger(__name__)

EXTERNAL_URL_ENV = "FIF_TEST_OPENAI_BASE_URL"
EXTERNAL_MODEL_ENV = "FIF_TEST_OPENAI_MODEL"
EXTERNAL_KEY_ENV = "FIF_TEST_OPENAI_API_KEY"
DECIDERS = {"llm", "offline", "offline-fallback", "rules"}
# Each call can take ~15 s on 2 cores when the small model rambles up to its reply cap, so
# the budgets (and no retries) keep every run to a handful of calls.
FAST = {"llm_retries": 0, "llm_backoff_s": 0.0, "llm_timeout_s": 120.0}


FALLBACK_REASON = re.compile(r"offline[- ]fallback \((?P<why>.*)\)$")


def assert_says_why(note: str) -> None:
    """Check a fallback note ends with its reason in parentheses, and the reason is not blank."""
    match = FALLBACK_REASON.search(note)
    assert match is not None and match["why"].strip(), f"fallback without a reason: {note!r}"


SILENT_FALLBACKS = (
    "evaluator: offline-fallback",
    "selection: offline-fallback ()",
    "selection: offline-fallback ( )",
    "selection: offline-fallback (x) then nothing",
)


def test_a_fallback_note_without_its_reason_is_caught() -> None:
    assert_says_why("selection: offline-fallback (LLM budget used up)")
    assert_says_why("traverser (step 0): offline fallback (timed out after 120 s)")
    for silent in SILENT_FALLBACKS:
        with pytest.raises(AssertionError, match="fallback without a reason"):
            assert_says_why(silent)


def assert_completed_with_llm_cost(result: RunResult, top_k: int) -> None:
    """Check a run ended with a ranking, metered LLM calls and a recorded decider per step."""
    assert len({r["component_id"] for r in result.ranking}) == len(result.ranking) == top_k
    assert result.cost["llm_calls"] > 0, result.cost
    assert result.cost["input_tokens"] + result.cost["output_tokens"] > 0, result.cost
    assert result.history
    deciders = [step["decided_by"] for step in result.history]
    assert any(llm_decided(step) for step in result.history), (deciders, result.fallbacks)
    for step in result.history:
        assert step["decided_by"] in DECIDERS, step["decided_by"]
    fallbacks = [n for s in result.history for n in s["notes"] if "offline-fallback" in n]
    for note in [*fallbacks, *result.fallbacks]:
        assert_says_why(note)
    logger.info(
        "%d steps, decided by %s; %d fallback notes; cost %s",
        len(result.history),
        [s["decided_by"] for s in result.history],
        len(fallbacks),
        result.cost,
    )


def llm_decided(step: dict) -> bool:
    """Tell whether the model chose the step's traversal or gave its verdict."""
    verdict_elsewhere = any(note.startswith("evaluator:") for note in step["notes"])
    return step["decided_by"] == "llm" or not verdict_elsewhere


def test_local_backend_answers_a_sample_question(
    sample_index: Path,
    sample_examples: tuple[EvalExample, ...],
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="tools.chat_models")  # as `fif` without -v
    example = sample_examples[0]
    context = FiFContext(
        index_dir=str(sample_index),
        backend="local",
        answer=True,
        max_steps=3,
        max_llm_calls=4,
        **FAST,
    )
    started = time.perf_counter()
    result = ask(example.question, context)
    logger.info(
        "local backend: %.1f s, answer %r (gold %s)",
        time.perf_counter() - started,
        result.answer,
        example.answers,
    )
    assert_completed_with_llm_cost(result, context.top_k)
    assert result.cost["llm_calls"] <= context.max_llm_calls
    assert isinstance(result.answer, str) and result.answer.strip()
    planned = result.history[0]
    assert planned["decided_by"] == "offline"  # the rule orchestrator, as LOCAL_ROUTES says
    assert "print_timing" not in capfd.readouterr().err  # llama.cpp's logs stay off


def served_model(base_url: str) -> str:
    """Return the first model id an OpenAI-compatible server lists under /models."""
    request = urllib.request.Request(f"{base_url.rstrip('/')}/models")
    key = os.environ.get(EXTERNAL_KEY_ENV)
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request, timeout=30) as reply:
        models = json.load(reply)["data"]
    assert models, f"{base_url}/models lists no model"
    return str(models[0]["id"])


@pytest.fixture(
    scope="module", params=["xllamacpp-server", "external-server"], ids=lambda p: str(p)
)
def openai_server(request: pytest.FixtureRequest) -> tuple[str, str]:
    """Return (base_url, model) of an OpenAI-compatible server.

    `xllamacpp-server` is the packaged SmolLM2 behind xllamacpp's HTTP endpoint, started
    here; `external-server` is whatever `FIF_TEST_OPENAI_BASE_URL` names (model from
    `FIF_TEST_OPENAI_MODEL`, else the first listed; key from `FIF_TEST_OPENAI_API_KEY`).
    """
    if request.param == "xllamacpp-server":
        base_url = _local_server(packaged_smollm2())
        return base_url, served_model(base_url)
    base_url = os.environ.get(EXTERNAL_URL_ENV)
    if not base_url:
        pytest.skip(f"{EXTERNAL_URL_ENV} is not set: no external OpenAI-compatible server to test")
    return base_url, os.environ.get(EXTERNAL_MODEL_ENV) or served_model(base_url)


def test_openai_backend_runs_against_a_compatible_server(
    openai_server: tuple[str, str], sample_index: Path, sample_examples: tuple[EvalExample, ...]
) -> None:
    base_url, model = openai_server
    context = FiFContext(
        index_dir=str(sample_index),
        backend="openai",
        base_url=base_url,
        chat_model=model,
        api_key_env=EXTERNAL_KEY_ENV,
        max_steps=2,
        max_llm_calls=3,
        **FAST,
    )
    started = time.perf_counter()
    result = ask(sample_examples[0].question, context)
    logger.info("openai backend at %s (%s): %.1f s", base_url, model, time.perf_counter() - started)
    assert_completed_with_llm_cost(result, context.top_k)
    assert result.cost["llm_calls"] <= context.max_llm_calls
