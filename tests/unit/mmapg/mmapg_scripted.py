"""A scripted chat model for MMAPG tests: one reply queue per prompt role, every call recorded.

The role is recognised from the first line of the system message (one per MMAPG prompt).
A queue item is a reply string or a callable(user text) -> str; an empty queue falls back to
`defaults[role]`, else the test fails loudly.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from corpus_builder.prompts import TRIPLET_SYSTEM
from nodes.mmapg import prompts
from tools.chat_models import register_chat_model

ROLES = {
    "plan": prompts.PLAN_SYSTEM,
    "planner": prompts.PLANNER_SYSTEM,
    "split": prompts.SPLIT_SYSTEM,
    "examine": prompts.EXAMINE_SYSTEM,
    "answer": prompts.ANSWER_SYSTEM,
    "triplets": prompts.TRIPLETS_SYSTEM,
    "kb_triplets": TRIPLET_SYSTEM,  # fif build --triplets
}
USAGE = {"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}


def role_of(messages: list[BaseMessage]) -> str:
    """Name the prompt role of a call from the first line of its system message."""
    system = next(str(m.content) for m in messages if isinstance(m, SystemMessage))
    for role, template in ROLES.items():
        if system.splitlines()[0] == template.splitlines()[0]:
            return role
    raise AssertionError(f"unknown prompt: {system.splitlines()[0]!r}")


class MMAPGScriptedModel(BaseChatModel):
    """Reply from per-role queues; `calls` records (role, last user text)."""

    roles: dict[str, list[Any]] = Field(default_factory=dict)
    defaults: dict[str, Any] = Field(default_factory=dict)
    calls: list[tuple[str, str]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "mmapg-scripted"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        role = role_of(messages)
        user = str([m for m in messages if isinstance(m, HumanMessage)][-1].content)
        self.calls.append((role, user))
        queue = self.roles.get(role)
        item: str | Callable[[str], str]
        if queue:
            item = queue.pop(0)
        elif role in self.defaults:
            item = self.defaults[role]
        else:
            raise AssertionError(f"no reply scripted for a {role} call")
        text = item(user) if callable(item) else item
        message = AIMessage(content=text, usage_metadata=USAGE)  # type: ignore[arg-type]
        return ChatResult(generations=[ChatGeneration(message=message)])

    def roles_called(self) -> list[str]:
        """Return the role of every call, in order."""
        return [role for role, _ in self.calls]


def register(model: MMAPGScriptedModel) -> str:
    """Register the model under a fresh name; return its spec for the Context."""
    return register_chat_model(f"mmapg-{uuid.uuid4().hex[:8]}", model)
