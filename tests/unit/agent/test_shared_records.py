"""The shared trace record of a decision and the shared one-line text checks of LLM schemas."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from nodes.core.decision import decision_record
from nodes.core.schemas import one_line, one_line_each
from nodes.ircot.schemas import NextSentence
from nodes.lilac.schemas import SubqueryList
from nodes.reagent.schemas import SubQuestions


@pytest.mark.parametrize(
    ("decided_by", "version"),
    [("llm", "v1"), ("offline-fallback", "v1"), ("offline", None), ("graph", None)],
)
def test_a_record_keeps_the_prompt_version_only_when_a_model_was_asked(
    decided_by: str, version: str | None
) -> None:
    record = decision_record("planner", decided_by, "why", "v1", node=3, pools=["text"])
    assert record == {
        "node": "planner",
        "decided_by": decided_by,
        "reason": "why",
        "prompt_version": version,
        "detail": {"node": 3, "pools": ["text"]},
    }


def test_text_is_put_on_one_line_and_a_blank_is_named() -> None:
    assert one_line("  two\n words ", "the sentence") == "two words"
    assert one_line_each(["a  b", "c\td"], "a subquery") == ["a b", "c d"]
    with pytest.raises(ValueError, match="the sentence is blank"):
        one_line(" \n", "the sentence")
    with pytest.raises(ValueError, match="a subquery is blank"):
        one_line_each(["ok", "  "], "a subquery")


@pytest.mark.parametrize(
    ("schema", "reply", "message"),
    [
        (SubqueryList, {"subqueries": ["x", " "]}, "a subquery is blank"),
        (SubQuestions, {"sub_questions": ["\t"]}, "a sub-question is blank"),
        (NextSentence, {"sentence": "  "}, "the sentence is blank"),
    ],
)
def test_each_system_schema_refuses_a_blank_text_by_name(
    schema: type, reply: dict[str, object], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        schema.model_validate(reply)
