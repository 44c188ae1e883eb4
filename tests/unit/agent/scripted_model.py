"""A scripted chat model for the agent tests: pops canned replies and records what it was sent.

A script item is a reply string, an exception instance to raise (a timeout, a rate limit),
or a callable(messages) -> str. `ScriptedChatModel(script=[...])` pops items in call order;
`ScriptedChatModel(roles={"orchestrator": [...], ...})` keeps one queue per prompt role
(recognised from the system message), so a graph run can script each node separately.
An empty queue falls back to `defaults[role]` when given, else the test fails loudly.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import httpx2
import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from nodes.core import prompts as core_prompts
from nodes.fif import prompts
from tools.chat_models import register_chat_model

Item = str | BaseException | Callable[[Sequence[BaseMessage]], str]

ROLES = {
    "planner": prompts.PLANNER_SYSTEM,
    "replanner": prompts.REPLANNER_SYSTEM,
    "orchestrator": prompts.ORCHESTRATOR_SYSTEM,
    "select": prompts.DOC_SELECT_SYSTEM,
    "select_component": prompts.COMPONENT_SELECT_SYSTEM,
    "evaluator": prompts.EVALUATOR_SYSTEM,
    "reranker": prompts.RERANKER_SYSTEM,
    "answerer": core_prompts.ANSWERER_SYSTEM,
}
INPUT_TOKENS = 100
OUTPUT_TOKENS = 20


def role_of(messages: Sequence[BaseMessage]) -> str:
    """Name the prompt role of a call from the first line of its system message."""
    system = next((str(m.content) for m in messages if isinstance(m, SystemMessage)), "")
    first = system.splitlines()[0] if system else ""
    for role, template in ROLES.items():
        if template.splitlines()[0] == first:
            return "select" if role == "select_component" else role
    raise AssertionError(f"unknown prompt role for system message {first!r}")


class ScriptedChatModel(BaseChatModel):
    """Reply from a script; every call is recorded as (role, messages, kwargs)."""

    script: list[Any] = Field(default_factory=list)
    roles: dict[str, list[Any]] = Field(default_factory=dict)
    defaults: dict[str, Any] = Field(default_factory=dict)
    calls: list[tuple[str, list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        role = role_of(messages)
        self.calls.append((role, list(messages), dict(kwargs)))  # response_format is ignored
        item = self._next(role)
        if isinstance(item, BaseException):
            raise item
        text = item(messages) if callable(item) else str(item)
        usage = {
            "input_tokens": INPUT_TOKENS,
            "output_tokens": OUTPUT_TOKENS,
            "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
        }
        message = AIMessage(content=text, usage_metadata=usage)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _next(self, role: str) -> Item:
        queue = self.roles.get(role) if self.roles else self.script
        if queue:
            return queue.pop(0)
        if role in self.defaults:
            return self.defaults[role]
        raise AssertionError(f"script exhausted: no reply left for a {role} call")

    def roles_called(self) -> list[str]:
        """Return the role of every call, in order."""
        return [role for role, _, _ in self.calls]

    def sent(self, role: str) -> list[list[BaseMessage]]:
        """Return the messages of every call of one role."""
        return [messages for name, messages, _ in self.calls if name == role]


def register(model: ScriptedChatModel) -> str:
    """Register a model under a fresh name and return its `registered:<name>` spec.

    Names must be fresh: `nodes.core.reasoning` caches one caller per model spec.
    """
    return register_chat_model(f"scripted-{uuid.uuid4().hex[:8]}", model)


def rate_limit() -> openai.RateLimitError:
    """Return the transient error the OpenAI SDK raises on HTTP 429."""
    request = httpx2.Request("POST", "https://api.example.invalid/v1/chat/completions")
    return openai.RateLimitError(
        "rate limited", response=httpx2.Response(429, request=request), body=None
    )


def cut_off(prompt_tokens: int = 300, completion_tokens: int = 512) -> Exception:
    """Return what the OpenAI SDK raises when a structured reply hits the length limit."""
    from openai.types import CompletionUsage
    from openai.types.chat import ChatCompletion

    usage = CompletionUsage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    completion = ChatCompletion.model_construct(
        id="cut-off", choices=[], created=0, model="scripted", object="chat.completion", usage=usage
    )
    return openai.LengthFinishReasonError(completion=completion)


def search(
    subtask: str,
    doc: str = "vector search",
    comp: str = "vector search",
    granularity: str = "document",
    anchor: int | None = None,
) -> str:
    """Return an orchestrator reply asking for a search."""
    action = {
        "next_action": "search",
        "next_retrieval_subtask": subtask,
        "document_search_mode": doc,
        "component_search_mode": comp,
        "vector_granularity": granularity,
        "anchor": anchor,
    }
    return json.dumps({"action": action})


def action(kind: str) -> str:
    """Return an orchestrator reply asking to stop or replan."""
    return json.dumps({"action": {"next_action": kind, "next_retrieval_subtask": None}})


def plan(*tasks: str) -> str:
    """Return a planner reply."""
    return json.dumps({"tasks": list(tasks)})


def verdict(status: str, updated: Sequence[tuple[int, str]] = ()) -> str:
    """Return an evaluator reply; `updated` lists (1-based subtask, answer)."""
    items = [{"index": i, "status": "answerable", "answer": a} for i, a in updated]
    return json.dumps({"status": status, "updated_subtasks": items})


def ranking(*indices: int) -> str:
    """Return a reranker (or selection) reply ranking candidates by index."""
    return json.dumps({"ranking": [{"index": i, "score": 0.9} for i in indices]})


def selection(*indices: int) -> str:
    """Return a selection reply."""
    return json.dumps({"selection": [{"index": i, "score": 0.8} for i in indices]})
