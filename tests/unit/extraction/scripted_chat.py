"""A scripted chat model for the extraction loop: one reply per call, callables see the prompt."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from state.extraction_state import ExtractionContext
from tools.chat_models import register_chat_model

Reply = str | Callable[[str], str]


class Scripted(BaseChatModel):
    """Pops one reply per call; a callable reply gets the last user message (prompt or repair)."""

    replies: list[Any] = Field(default_factory=list)
    sent: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-extraction"

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        user = [str(m.content) for m in messages if isinstance(m, HumanMessage)][-1]  # or repair
        self.sent.append(user)
        if not self.replies:
            raise AssertionError("script exhausted")
        reply = self.replies.pop(0)
        text = reply(user) if callable(reply) else reply
        usage = {"input_tokens": 300, "output_tokens": 40, "total_tokens": 340}
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )


def llm_context(index_dir: str, model: Scripted, **update: Any) -> ExtractionContext:
    """An openai-backend context whose chat model is the scripted one (no retries)."""
    spec = register_chat_model(f"extraction-{uuid.uuid4().hex[:8]}", model)
    fields = {
        "index_dir": index_dir,
        "backend": "openai",
        "chat_model": spec,
        "llm_retries": 0,
        "top_k": 6,
        "max_documents": 1,
        "answer": True,
    }
    return ExtractionContext(**{**fields, **update})


def choose(heading_words: str) -> Callable[[str], str]:
    """Return a reply choosing the listed section whose heading holds the words."""

    def reply(user: str) -> str:
        line = next(row for row in user.splitlines() if heading_words in row and " | " in row)
        return json.dumps({"sections": [line.split(" | ")[0]]})

    return reply


def finding(label: str, value: float, page: int) -> dict[str, Any]:
    """A finding as the model writes it."""
    return {"label": label, "value": value, "unit": "USD millions", "page": page, "context": label}


def extracted(*findings: dict[str, Any]) -> str:
    """An extraction reply with findings."""
    return json.dumps({"findings": list(findings), "fail": None})


def verdict(status: str, **fields: Any) -> str:
    """A synthesis reply."""
    return json.dumps({"status": status, **fields})


def findings_shown(user: str) -> list[str]:
    """Return the finding ids a synthesis prompt shows."""
    return re.findall(r"^(f\d+) \|", user, flags=re.MULTILINE)


__all__ = ["Reply", "Scripted", "Sequence", "choose", "extracted", "finding", "llm_context"]
