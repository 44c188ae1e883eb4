"""IRCoT with a scripted chat model: its sentence is the next query; bad output falls back."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from graph_agent.ircot_graph import ask_ircot
from nodes.ircot.prompts import REASON_VERSION
from state.ircot_state import IrcotContext
from tools.chat_models import register_chat_model

QUESTION = "What is the atomic number of the element named after Marie Curie's native country?"
FIRST = "Marie Curie was born in Warsaw, Poland, so her native country is Poland."
SECOND = "Polonium was named after Poland and has atomic number 84. So the answer is 84."


class RecordingModel(BaseChatModel):
    """Reply with scripted texts in order and keep every prompt it was sent."""

    replies: list[str] = Field(default_factory=list)
    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, **_: Any) -> ChatResult:
        self.prompts.append(list(messages))
        if not self.replies:
            raise AssertionError("the script ran out of replies")
        usage = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}
        message = AIMessage(content=self.replies.pop(0), usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])


def reply(sentence: str, answer: str | None = None) -> str:
    return json.dumps({"sentence": sentence, "answer": answer})


def llm_context(mini_index: Path, model: RecordingModel, **overrides: Any) -> IrcotContext:
    spec = register_chat_model(f"ircot-{uuid.uuid4().hex[:8]}", model)
    settings = {
        "index_dir": str(mini_index),
        "backend": "openai",
        "chat_model": spec,
        "llm_backoff_s": 0.0,
        "top_k": 6,
        "retrieve_k": 3,
        **overrides,
    }
    return IrcotContext(**settings)


def steps(history: Sequence[dict[str, Any]], node: str) -> list[dict[str, Any]]:
    return [step for step in history if step["node"] == node]


def test_the_models_sentence_is_the_next_query_and_its_answer_stops(mini_index: Path) -> None:
    model = RecordingModel(replies=[reply(FIRST), reply(SECOND, "84")])
    result = ask_ircot(QUESTION, llm_context(mini_index, model))
    assert [s["node"] for s in result.history] == [
        "retriever", "reasoner", "retriever", "reasoner", "ranker",
    ]  # fmt: skip
    first, second = steps(result.history, "reasoner")
    assert (first["sentence"], first["decided_by"], first["prompt_version"]) == (
        FIRST,
        "llm",
        REASON_VERSION,
    )
    assert steps(result.history, "retriever")[1]["query"] == FIRST
    assert steps(result.history, "retriever")[1]["decided_by"] == "llm"
    assert second["answer"] == "84" and result.answer == "84"
    assert "reached an answer at step 2" in result.history[-1]["reason"]
    assert result.cost["llm_calls"] == 2 and result.cost["input_tokens"] == 200
    assert [s["text"] for s in result.subqueries] == [FIRST, SECOND]


def test_the_prompt_puts_the_evidence_before_the_question_and_the_chain(
    mini_index: Path,
) -> None:
    model = RecordingModel(replies=[reply(FIRST), reply(SECOND, "84")])
    result = ask_ircot(QUESTION, llm_context(mini_index, model))
    second_prompt = next(m for m in model.prompts[1] if isinstance(m, HumanMessage))
    text = str(second_prompt.content)
    evidence, question, chain = (text.index("Evidence:"), text.index(QUESTION), text.index(FIRST))
    assert evidence < question < chain
    first_found = steps(result.history, "retriever")[0]["new_components"]
    assert all(f"{i}: [" in text for i in range(len(first_found)))


def test_an_answer_only_in_the_sentence_still_stops_the_chain(mini_index: Path) -> None:
    model = RecordingModel(replies=[reply("Polonium has atomic number 84. So the answer is 84.")])
    result = ask_ircot(QUESTION, llm_context(mini_index, model))
    assert result.answer == "84" and result.cost["llm_calls"] == 1


def test_malformed_json_falls_back_to_the_offline_twin_without_crashing(
    mini_index: Path,
) -> None:
    model = RecordingModel(replies=["Marie Curie was born in", "not json either"])
    context = llm_context(mini_index, model, llm_retries=1, max_chain_steps=1)
    result = ask_ircot(QUESTION, context)
    (reasoning,) = steps(result.history, "reasoner")
    assert reasoning["decided_by"] == "offline-fallback" and "not JSON" in reasoning["reason"]
    assert reasoning["prompt_version"] == REASON_VERSION, "the model was asked"
    (sentence,) = result.subqueries
    assert sentence["decided_by"] == "offline-fallback" and sentence["source"]
    assert steps(result.history, "retriever")[1]["query"] == sentence["text"]
    assert result.fallbacks and result.fallbacks[0].startswith("reasoner: offline fallback")
    assert result.cost["fallbacks"] == 1 and result.cost["llm_calls"] == 2
    assert len(result.ranking) == context.top_k


def test_a_repeated_sentence_is_sent_back_for_repair(mini_index: Path) -> None:
    model = RecordingModel(replies=[reply(FIRST), reply(FIRST), reply(SECOND, "84")])
    result = ask_ircot(QUESTION, llm_context(mini_index, model))
    assert [s["text"] for s in result.subqueries] == [FIRST, SECOND]
    repair = str(model.prompts[2][-1].content)
    assert "already in the chain" in repair and result.cost["llm_calls"] == 3


def test_the_llm_call_budget_hands_later_steps_to_the_offline_twin(mini_index: Path) -> None:
    model = RecordingModel(replies=[reply(FIRST)])
    context = llm_context(mini_index, model, max_llm_calls=1, max_chain_steps=2)
    result = ask_ircot(QUESTION, context)
    first, second = steps(result.history, "reasoner")
    assert first["decided_by"] == "llm"
    assert second["decided_by"] == "offline-fallback" and "budget" in second["reason"]
    assert second["prompt_version"] is None, "no model was asked"
    assert result.cost["llm_calls"] == 1
