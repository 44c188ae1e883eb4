"""What the build stages that ask the chat model share: the model loaded on first use, metered."""

from __future__ import annotations

from state.settings import RunSettings
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller, caller_for


class ChatStage:
    """A build stage's structured caller of the context's chat model, and what it spent."""

    def __init__(self, context: RunSettings, local_max_tokens: int) -> None:
        """Keep the context; the model itself loads on the first `caller()`.

        Args:
            context: Selects the backend and chat model (openai, local or a registered model).
            local_max_tokens: Reply cap for the in-process model (hosted models get none:
                reasoning models spend output tokens before they answer).
        """
        self.context = context
        self.meter = CostMeter()
        """LLM calls, tokens and dollars of every call of the stage, for the manifest."""
        self._local_max_tokens = local_max_tokens
        self._caller: StructuredCaller | None = None

    def caller(self) -> StructuredCaller:
        """Return the structured caller, loading the chat model the first time."""
        if self._caller is None:
            local = self.context.backend == "local"
            self._caller = caller_for(self.context, self._local_max_tokens if local else None)
        return self._caller
