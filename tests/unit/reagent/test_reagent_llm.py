"""ReAgent with a scripted chat model: valid replies are used, malformed JSON falls back offline."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field
from reagent_bundle import MUSEUM_QUESTION, OPENED_1934

from graph_agent.reagent_graph import ask_reagent
from state.reagent_state import ReAgentContext
from tools.chat_models import register_chat_model

Reply = str | Callable[[Sequence[BaseMessage]], str]


class Scripted(BaseChatModel):
    """Pops one reply per call; a callable reply sees the messages it answers."""

    replies: list[Any] = Field(default_factory=list)
    sent: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-reagent"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.sent.append(list(messages))
        if not self.replies:
            raise AssertionError("script exhausted")
        reply = self.replies.pop(0)
        text = reply(messages) if callable(reply) else reply
        usage = {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50}
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )


def llm_context(index_dir: str, model: Scripted, **update: Any) -> ReAgentContext:
    spec = register_chat_model(f"reagent-{uuid.uuid4().hex[:8]}", model)
    fields = {
        "index_dir": index_dir,
        "backend": "openai",
        "chat_model": spec,
        "llm_retries": 0,
        "top_k": 5,
        "evidence_m": 5,
        "max_subqueries": 1,
        "backtrack_depth": 0,
    }
    return ReAgentContext(**{**fields, **update})


def user_text(messages: Sequence[BaseMessage]) -> str:
    return next(str(m.content) for m in messages if isinstance(m, HumanMessage))


def test_malformed_json_falls_back_offline_and_valid_replies_are_used(reagent_index_dir):
    extraction = {
        "assertions": [
            {
                "evidence": 1,
                "entity": "Curie Museum",
                "attribute": "opened",
                "value": "1934",
                "statement": "The Curie Museum opened in 1934.",
            }
        ]
    }
    model = Scripted(replies=["{not json", json.dumps(extraction), '{"verdicts": ['])
    result = ask_reagent(MUSEUM_QUESTION, llm_context(reagent_index_dir, model))
    by_node = {step["node"]: step for step in result.history}
    assert by_node["decomposer"]["decided_by"] == "offline-fallback"
    assert "not JSON" in by_node["decomposer"]["reason"]
    assert by_node["retriever"]["decided_by"] == "llm"
    assert by_node["verifier"]["decided_by"] == "offline-fallback"
    assert result.cost["llm_calls"] == 3
    assert result.cost["fallbacks"] == 2
    assert result.cost["input_tokens"] == 120
    assert result.ranking[0]["component_id"] == OPENED_1934
    assert len(model.sent) == 3
    evidence_at, question_at = (
        user_text(model.sent[1]).find(k) for k in ("Evidence", "Sub-question")
    )
    assert 0 <= evidence_at < question_at  # evidence before the question


def test_the_llm_verifier_can_reject_an_assertion(reagent_index_dir):
    def reject_all(messages: Sequence[BaseMessage]) -> str:
        ids = [
            line.split()[1] for line in user_text(messages).splitlines() if line.startswith("- ")
        ]
        new = ids[-1:]  # the new assertion is listed last
        return json.dumps({"verdicts": [{"assertion": i, "verdict": "unsupported"} for i in new]})

    extraction = {
        "assertions": [
            {
                "evidence": 2,
                "entity": "Curie Museum",
                "attribute": "opened",
                "value": "1967",
                "statement": "It opened in 1967.",
            }
        ]
    }
    model = Scripted(
        replies=[
            '{"sub_questions": ["When was the Curie Museum opened?"]}',
            json.dumps(extraction),
            reject_all,
        ]
    )
    result = ask_reagent(MUSEUM_QUESTION, llm_context(reagent_index_dir, model))
    verifier = next(step for step in result.history if step["node"] == "verifier")
    assert verifier["decided_by"] == "llm"
    assert list(verifier["detail"]["verdicts"].values()) == ["unsupported"]
    assembler = next(step for step in result.history if step["node"] == "assembler")
    assert assembler["detail"]["surviving"] == []


def test_the_llm_call_budget_sends_later_agents_offline(reagent_index_dir):
    model = Scripted(replies=['{"sub_questions": ["When was the Curie Museum opened?"]}'])
    context = llm_context(reagent_index_dir, model, max_llm_calls=1)
    result = ask_reagent(MUSEUM_QUESTION, context)
    by_node = {step["node"]: step for step in result.history}
    assert by_node["decomposer"]["decided_by"] == "llm"
    assert by_node["retriever"]["decided_by"] == "offline-fallback"
    assert "LLM budget used up" in by_node["retriever"]["reason"]
    assert result.cost["llm_calls"] == 1
