"""The scripted model, StructuredCaller (repair, retries, backoff) and `decide` (LLM or offline)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from scripted_model import (
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    ScriptedChatModel,
    cut_off,
    plan,
    rate_limit,
    register,
)

from nodes.core.reasoning import decide
from nodes.fif.schemas import PlannedTasks
from state.fif_context import FiFContext
from tools.cost import CostMeter
from tools.llm_calls import LLMFailure, StructuredCaller

SYSTEM = "You decompose a question into retrieval tasks over a corpus of pages made of\n..."
GOOD = plan("find the flag of Warsaw")


def call(
    *script, retries: int = 2, validate=None
) -> tuple[PlannedTasks, ScriptedChatModel, CostMeter]:
    model = ScriptedChatModel(script=list(script))
    meter = CostMeter()
    caller = StructuredCaller(model, "scripted", retries=retries, backoff_s=0)
    return caller.call(PlannedTasks, SYSTEM, "Question: q", meter, validate), model, meter


def test_a_valid_reply_is_parsed_metered_and_asked_for_with_a_json_schema() -> None:
    parsed, model, meter = call(GOOD)
    assert parsed.tasks == ["find the flag of Warsaw"]
    assert (meter.llm_calls, meter.input_tokens, meter.output_tokens) == (
        1,
        INPUT_TOKENS,
        OUTPUT_TOKENS,
    )
    [(_, messages, kwargs)] = model.calls
    assert [type(m) for m in messages] == [SystemMessage, HumanMessage]
    assert kwargs["response_format"]["json_schema"]["name"] == "PlannedTasks"


@pytest.mark.parametrize(
    "reply",
    ['```json\n{"tasks": ["a", "b",]}\n```', 'Sure! Here it is: {"tasks": ["a", "b"]} Done.'],
    ids=["fenced-trailing-comma", "prose-around"],
)
def test_replies_are_cleaned_before_parsing(reply: str) -> None:
    assert call(reply)[0].tasks == ["a", "b"]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        ("{not json", "not JSON"),
        ('{"tasks": []}', "schema mismatch at tasks"),
        ('{"steps": ["a"]}', "schema mismatch at tasks"),
        ('{"tasks": ["  "]}', "non-empty"),
    ],
    ids=["malformed", "too-short", "wrong-key", "blank-task"],
)
def test_an_unusable_reply_gets_one_repair_prompt(bad: str, error: str) -> None:
    parsed, model, meter = call(bad, GOOD)
    assert parsed.tasks == ["find the flag of Warsaw"] and meter.llm_calls == 2
    repair = model.calls[1][1]
    assert isinstance(repair[2], AIMessage) and repair[2].content == bad
    assert isinstance(repair[3], HumanMessage) and "could not be used" in repair[3].content
    assert error in repair[3].content


def test_a_validator_rejection_is_repaired_too() -> None:
    def no_warsaw(parsed: PlannedTasks) -> None:
        if any("Warsaw" in t for t in parsed.tasks):
            raise ValueError("task names an entity twice")

    parsed, model, _ = call(GOOD, plan("find the flag"), validate=no_warsaw)
    assert parsed.tasks == ["find the flag"]
    assert "task names an entity twice" in model.calls[1][1][-1].content


@pytest.mark.parametrize("error", [TimeoutError("read timed out"), rate_limit()],
                         ids=["timeout", "rate-limit"])  # fmt: skip
def test_a_transient_error_is_retried_without_a_repair_prompt(error: Exception) -> None:
    parsed, model, meter = call(error, GOOD)
    # the failed attempt is counted apart from the answered call (both spend the budget)
    assert parsed.tasks and len(model.calls) == 2
    assert (meter.llm_calls, meter.llm_failed_attempts) == (1, 1)
    assert len(model.calls[1][1]) == 2  # the same two messages, no repair turn


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ([TimeoutError("t")] * 3, "TimeoutError"),
        ([rate_limit()] * 3, "RateLimitError"),
        (["nope", "still nope", "{}"], "schema mismatch"),
    ],
    ids=["timeouts", "rate-limits", "never-valid"],
)
def test_running_out_of_tries_raises_llm_failure(script, problem: str) -> None:
    with pytest.raises(LLMFailure, match=f"after 3 attempts.*{problem}"):
        call(*script)


def test_a_cut_off_reply_is_metered_and_asked_again_to_be_short() -> None:
    parsed, model, meter = call(cut_off(300, 512), GOOD)
    assert parsed.tasks == ["find the flag of Warsaw"] and len(model.calls) == 2
    assert (meter.llm_calls, meter.input_tokens, meter.output_tokens) == (
        2,
        300 + INPUT_TOKENS,
        512 + OUTPUT_TOKENS,
    )
    repair = model.calls[1][1]
    assert len(repair) == 3 and isinstance(repair[2], HumanMessage)
    assert "cut off" in repair[2].content and "short" in repair[2].content


def test_cut_off_replies_until_the_last_try_raise_llm_failure() -> None:
    with pytest.raises(LLMFailure, match="after 2 attempts.*cut off"):
        call(cut_off(), cut_off(), retries=1)


def test_logic_errors_are_not_retried() -> None:
    model = ScriptedChatModel(script=[KeyError("bug"), GOOD])
    with pytest.raises(KeyError):
        StructuredCaller(model, "scripted", backoff_s=0).call(
            PlannedTasks, SYSTEM, "q", CostMeter()
        )
    assert len(model.calls) == 1


def test_backoff_doubles_between_transient_failures(monkeypatch: pytest.MonkeyPatch) -> None:
    delays: list[float] = []
    monkeypatch.setattr("tools.llm_calls.time.sleep", delays.append)
    model = ScriptedChatModel(script=[TimeoutError(), TimeoutError(), GOOD])
    StructuredCaller(model, "scripted", retries=2, backoff_s=1.0).call(
        PlannedTasks, SYSTEM, "q", CostMeter()
    )
    assert len(delays) == 2 and 1.0 <= delays[0] <= 1.5 and 2.0 <= delays[1] <= 2.5


def test_an_exhausted_script_fails_the_test_loudly() -> None:
    with pytest.raises(AssertionError, match="script exhausted"):
        call()


def llm_context(model: ScriptedChatModel, **overrides) -> FiFContext:
    settings = {"backend": "openai", "chat_model": register(model), "llm_backoff_s": 0}
    return FiFContext(**{**settings, **overrides})


def run_decide(context: FiFContext, state=None, llm=True):
    meter = CostMeter()

    def with_llm(caller: StructuredCaller) -> list[str]:
        return caller.call(PlannedTasks, SYSTEM, "q", meter).tasks

    decided = decide(state or {}, context, meter, with_llm if llm else None, lambda: ["offline"])
    return decided, meter


@pytest.mark.parametrize(
    ("script", "overrides", "state", "llm", "expected"),
    [
        ([GOOD], {"backend": "offline"}, {}, True, (["offline"], "offline", "", 0)),
        ([GOOD], {}, {}, False, (["offline"], "offline", "", 0)),
        ([GOOD], {}, {}, True, (["find the flag of Warsaw"], "llm", "", 0)),
        ([GOOD], {"max_llm_calls": 2}, {"cost": {"llm_calls": 2}}, True,
         (["offline"], "offline-fallback", "LLM budget used up", 0)),
        ([GOOD], {"max_tokens": 50}, {"cost": {"input_tokens": 50}}, True,
         (["offline"], "offline-fallback", "LLM budget used up", 0)),
        ([TimeoutError("t"), TimeoutError("t")], {"llm_retries": 1}, {}, True,
         (["offline"], "offline-fallback", "TimeoutError", 1)),
        (["x", "y"], {"llm_retries": 1}, {}, True,
         (["offline"], "offline-fallback", "not JSON", 1)),
    ],
    ids=["offline-backend", "no-llm-path", "llm", "call-budget", "token-budget",
         "timeouts-fall-back", "invalid-falls-back"],
)  # fmt: skip
def test_decide(script, overrides, state, llm, expected) -> None:
    model = ScriptedChatModel(script=list(script))
    decided, meter = run_decide(llm_context(model, **overrides), state, llm)
    value, by, note, fallbacks = expected
    assert (decided.value, decided.decided_by, meter.fallbacks) == (value, by, fallbacks)
    assert note in decided.note
    if by == "offline-fallback" and "budget" in note:
        assert model.calls == []  # no call is made past the budget
