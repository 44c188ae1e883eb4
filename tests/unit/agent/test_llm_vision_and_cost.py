"""What the chat model is sent (image blocks under vision) and what it costs (the price table)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from agent_records import candidate
from agent_runs import NOBEL_QUESTION, Run, llm_context
from langgraph.runtime import Runtime
from scripted_model import (
    INPUT_TOKENS,
    OUTPUT_TOKENS,
    ScriptedChatModel,
    plan,
    ranking,
    search,
    verdict,
)

from nodes.fif.reranker import reranker
from tools.chat_models import REGISTERED_PREFIX

IMAGE, PARAGRAPH = "warsaw::i0", "warsaw::p1"
FLAG_PNG = Path(__file__).resolve().parents[2] / "fixtures/mini_bundle/images/warsaw_flag.png"


def image_blocks(content: object) -> list[dict]:
    """Return the image content blocks of a message's content (none for plain text)."""
    if isinstance(content, str):
        return []
    return [block for block in content if block.get("type") == "image_url"]  # type: ignore[union-attr]


@pytest.mark.parametrize("vision", [True, False], ids=["vision", "text-only"])
def test_image_components_reach_the_model_as_image_blocks_only_under_vision(
    mini_index: Path, vision: bool
) -> None:
    model = ScriptedChatModel(roles={"reranker": [ranking(0, 1)]})
    context = llm_context(mini_index, model, vision=vision)
    state = {
        "question": "What does the flag of Warsaw look like?",
        "subqueries": [],
        "candidates": {cid: candidate(cid, 0.8) for cid in (IMAGE, PARAGRAPH)},
    }
    update = reranker(state, Runtime(context=context))
    assert update["ranking"] and "fallbacks" not in update
    [messages] = model.sent("reranker")
    content = messages[1].content
    blocks = image_blocks(content)
    if not vision:
        assert isinstance(content, str) and blocks == []
        return
    [block] = blocks  # the image candidate only, not the paragraph
    mime, data = block["image_url"]["url"].removeprefix("data:").split(";base64,")
    assert mime == "image/png" and base64.b64decode(data) == FLAG_PNG.read_bytes()
    prompt, *labels = [part["text"] for part in content if part["type"] == "text"]
    [number] = [line.split(":")[0] for line in prompt.splitlines() if ": [image] " in line]
    assert labels == [f"Image of candidate {number}:"]  # the block follows its own label


def test_usd_follows_a_custom_price_table_from_the_models_token_usage(mini_index: Path) -> None:
    def scripted() -> ScriptedChatModel:
        return ScriptedChatModel(
            roles={
                "planner": [plan(NOBEL_QUESTION)],
                "orchestrator": [search(NOBEL_QUESTION)],
                "evaluator": [verdict("answerable")],
                "reranker": [ranking(1, 0)],
            }
        )

    free = llm_context(mini_index, scripted())
    priced = llm_context(mini_index, scripted())
    name = priced.chat_model.removeprefix(REGISTERED_PREFIX)
    priced = priced.model_copy(update={"price_table": {name: (2.0, 10.0)}})
    cost = Run(NOBEL_QUESTION, priced).state["cost"]
    calls = cost["llm_calls"]
    assert calls == 4
    assert (cost["input_tokens"], cost["output_tokens"]) == (
        calls * INPUT_TOKENS,
        calls * OUTPUT_TOKENS,
    )
    expected = (cost["input_tokens"] * 2.0 + cost["output_tokens"] * 10.0) / 1e6
    assert cost["usd"] == pytest.approx(expected) and expected > 0
    assert Run(NOBEL_QUESTION, free).state["cost"]["usd"] == 0.0  # an unpriced model is free
