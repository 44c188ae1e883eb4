"""IRCoT's stop rules and answer parsing as tables, on hand-written states."""

from __future__ import annotations

from typing import Any

import pytest

from nodes.ircot.chain import answer_in
from nodes.ircot.rules import stop_after_reasoning, stop_after_retrieval, stop_reason
from state.ircot_state import IrcotContext, IrcotStep


def retrieval(step: int, new: list[str]) -> IrcotStep:
    return {
        "node": "retriever",
        "step": step,
        "decided_by": "question" if step == 0 else "offline",
        "reason": "",
        "query": f"q{step}",
        "retrieved": ["a", "b"],
        "new_components": new,
    }


def reasoning(step: int, sentence: str | None, answer: str | None = None) -> IrcotStep:
    return {
        "node": "reasoner",
        "step": step,
        "decided_by": "offline",
        "reason": "",
        "sentence": sentence,
        "answer": answer,
    }


def state(*steps: IrcotStep) -> dict[str, Any]:
    return {"question": "Q", "history": list(steps)}


@pytest.mark.parametrize(
    ("history", "settings", "expected"),
    [
        ([retrieval(0, ["a", "b"])], {}, None),
        ([retrieval(0, [])], {}, "retrieval 0 found nothing new"),
        (
            [retrieval(0, ["a"]), reasoning(1, "s1"), retrieval(1, [])],
            {},
            "retrieval 1 found nothing new",
        ),
        (
            [retrieval(0, ["a"]), reasoning(1, "s1"), retrieval(1, ["c"])],
            {"max_chain_steps": 1},
            "reached max_chain_steps=1",
        ),
        (
            [retrieval(0, ["a"]), reasoning(1, "s1"), retrieval(1, ["c"])],
            {"max_chain_steps": 2},
            None,
        ),
        ([retrieval(0, ["a"])], {"max_chain_steps": 0}, "reached max_chain_steps=0"),
        (
            [retrieval(0, ["a"]), reasoning(1, "s1"), retrieval(1, ["c"])],
            {"max_steps": 2},
            "reached the step budget max_steps=2",
        ),
    ],
    ids=[
        "new-evidence-continues",
        "empty-first-retrieval",
        "nothing-new",
        "chain-step-limit",
        "below-the-limit",
        "no-reasoning-at-all",
        "step-budget",
    ],
)
def test_stop_after_retrieval(history, settings, expected) -> None:
    assert stop_after_retrieval(state(*history), IrcotContext(**settings)) == expected


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (reasoning(1, "Warsaw is the capital of Poland."), None),
        (reasoning(2, "So the answer is 84.", "84"), "the chain reached an answer at step 2"),
        (reasoning(1, None), "no new sentence at step 1"),
    ],
    ids=["a-sentence-continues", "an-answer-stops", "no-sentence-stops"],
)
def test_stop_after_reasoning(last: IrcotStep, expected: str | None) -> None:
    assert stop_after_reasoning(state(retrieval(0, ["a"]), last)) == expected


def test_stop_after_reasoning_needs_a_reasoning_step() -> None:
    with pytest.raises(ValueError, match="no reasoning step"):
        stop_after_reasoning(state(retrieval(0, ["a"])))


def test_the_stop_reason_is_judged_by_the_node_that_ran_last() -> None:
    context = IrcotContext(max_chain_steps=1)
    answered = state(retrieval(0, ["a"]), reasoning(1, "So the answer is x.", "x"))
    assert stop_reason(answered, context) == "the chain reached an answer at step 1"
    limited = state(retrieval(0, ["a"]), reasoning(1, "s"), retrieval(1, ["b"]))
    assert stop_reason(limited, context) == "reached max_chain_steps=1"


@pytest.mark.parametrize(
    ("sentence", "answer"),
    [
        ("So the answer is yellow and red.", "yellow and red"),
        ("Thus, the answer is: 84", "84"),
        ('So the Answer is "becquerel".', "becquerel"),
        ("Warsaw is the capital of Poland.", None),
        ("The answer is .", None),
    ],
)
def test_answer_in_reads_the_papers_answer_marker(sentence: str, answer: str | None) -> None:
    assert answer_in(sentence) == answer
