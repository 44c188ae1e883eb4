"""The decomposer node with scripted chat models: joint and separate modes, repair, fallbacks."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langgraph.runtime import Runtime

from nodes.lilac.decomposer import decomposer, decomposer_for
from nodes.lilac.prompts import DECOMPOSE_VERSION
from state.lilac_state import LilacContext
from tools.chat_models import register_chat_model

QUESTION = "Which club won the Sparrow Cup in 2002 , and when was that rowing club founded ?"


def _reply(payload: Any, tokens: tuple[int, int] = (100, 20)) -> AIMessage:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    usage = {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)}
    return AIMessage(content=text, usage_metadata=usage)


def _context(model: Any, **overrides: Any) -> LilacContext:
    spec = register_chat_model(f"lilac-{uuid.uuid4().hex[:8]}", model)
    settings = {"backend": "openai", "chat_model": spec, "llm_backoff_s": 0.0, **overrides}
    return LilacContext(**settings)


def _scripted(*replies: AIMessage) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(replies))


class TimingOutModel(BaseChatModel):
    """A chat model whose every call times out."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "timing-out"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **kwargs: Any) -> ChatResult:
        self.calls += 1
        raise TimeoutError("the model server did not answer in time")


def _run(context: LilacContext) -> dict[str, Any]:
    return dict(decomposer({"question": QUESTION}, Runtime(context=context)))


def test_joint_decomposition_returns_labelled_subqueries_and_meters_the_call():
    plan = {
        "subqueries": [
            {"text": "Sparrow Cup winner in 2002", "modality": "table"},
            {"text": "year the rowing club was founded", "modality": "text"},
        ]
    }
    update = _run(_context(_scripted(_reply(plan)), price_table={"lilac-": (1.0, 2.0)}))
    assert update["subqueries"] == [
        {"index": 0, "text": "Sparrow Cup winner in 2002", "modality": "table"},
        {"index": 1, "text": "year the rowing club was founded", "modality": "text"},
    ]
    (step,) = update["trace"]
    assert step["decided_by"] == "llm"
    assert step["prompt_version"] == DECOMPOSE_VERSION
    assert update["cost"]["llm_calls"] == 1
    assert update["cost"]["input_tokens"] == 100
    assert update["cost"]["usd"] == pytest.approx((100 * 1.0 + 20 * 2.0) / 1e6)


def test_malformed_json_is_repaired_on_the_next_attempt():
    good = {"subqueries": [{"text": "Sparrow Cup 2002 winner club founded", "modality": "Table"}]}
    model = _scripted(_reply('{"subqueries": [{"text": "Sparrow Cup"'), _reply(good))
    update = _run(_context(model, llm_retries=1))
    assert update["trace"][0]["decided_by"] == "llm"
    assert update["subqueries"][0]["modality"] == "table"
    assert update["cost"]["llm_calls"] == 2


def test_too_many_subqueries_are_sent_back_for_repair():
    many = {"subqueries": [{"text": f"part {i}", "modality": "text"} for i in range(4)]}
    few = {"subqueries": [{"text": "Sparrow Cup 2002 rowing club", "modality": "text"}]}
    update = _run(_context(_scripted(_reply(many), _reply(few)), max_subqueries=3))
    assert [s["text"] for s in update["subqueries"]] == ["Sparrow Cup 2002 rowing club"]


def test_a_timeout_falls_back_to_the_offline_decomposer_and_says_why():
    model = TimingOutModel()
    update = _run(_context(model, llm_retries=1))
    (step,) = update["trace"]
    assert step["decided_by"] == "offline-fallback"
    assert "TimeoutError" in step["reason"]
    assert model.calls == 2
    assert update["subqueries"][0]["text"] == QUESTION
    assert update["cost"]["fallbacks"] == 1
    assert update["cost"]["llm_failed_attempts"] == 2  # counted apart from answered calls


def test_output_still_invalid_after_repairs_falls_back_offline():
    model = _scripted(_reply("not json at all"), _reply("still not json"))
    update = _run(_context(model, llm_retries=1))
    assert update["trace"][0]["decided_by"] == "offline-fallback"
    assert "not JSON" in update["trace"][0]["reason"]
    assert update["cost"]["llm_calls"] == 2


def test_separate_mode_asks_for_each_modality_as_the_paper_does():
    model = _scripted(
        _reply({"subqueries": ["Sparrow Cup winner in 2002", "rowing club founding year"]}),
        _reply({"modality": "table"}),
        _reply({"modality": "text"}),
    )
    update = _run(_context(model, modality_selection="separate"))
    assert [s["modality"] for s in update["subqueries"]] == ["table", "text"]
    assert update["cost"]["llm_calls"] == 3
    assert update["trace"][0]["detail"]["modality_fallbacks"] == []


def test_separate_mode_labels_a_subquery_by_keywords_when_its_modality_call_fails():
    model = _scripted(
        _reply({"subqueries": ["how many Sparrow Cup goals in 2002", "club history"]}),
        _reply("garbage"),
        _reply({"modality": "text"}),
    )
    update = _run(_context(model, modality_selection="separate", llm_retries=0))
    assert [s["modality"] for s in update["subqueries"]] == ["table", "text"]
    (step,) = update["trace"]
    assert step["decided_by"] == "llm"
    assert step["detail"]["modality_fallbacks"] == [0]
    assert update["cost"]["fallbacks"] == 1


def test_duplicate_subqueries_from_the_model_are_merged():
    plan = {
        "subqueries": [
            {"text": "Sparrow Cup winner", "modality": "table"},
            {"text": "sparrow cup winner", "modality": "table"},
        ]
    }
    update = _run(_context(_scripted(_reply(plan))))
    assert len(update["subqueries"]) == 1


def test_offline_backend_and_a_zero_llm_budget_never_load_a_model():
    assert type(decomposer_for(LilacContext())).__name__ == "OfflineDecomposer"
    context = _context(TimingOutModel(), max_llm_calls=0)
    assert type(decomposer_for(context)).__name__ == "OfflineDecomposer"
    assert _run(context)["trace"][0]["decided_by"] == "offline"
