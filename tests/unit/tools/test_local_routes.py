"""The local backend's routing table: every decision listed, and the structured caller obeys it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field

from tools.cost import CostMeter
from tools.llm_calls import NotRouted, StructuredCaller
from tools.local_routes import LOCAL_ROUTES, bounded, local_route

REPO = Path(__file__).resolve().parents[3]
CALL = re.compile(r"\.call\(\s*([A-Z]\w*)\s*,")
"""`caller.call(Schema, ...)`: the schema names the decision."""


def decisions_in_code() -> set[str]:
    found: set[str] = set()
    for package in ("nodes", "corpus_builder", "evals"):
        for path in (REPO / package).rglob("*.py"):
            found |= set(CALL.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_decision_the_code_asks_for_is_routed_and_none_is_stale() -> None:
    asked = decisions_in_code()
    assert len(asked) > 20
    assert asked - set(LOCAL_ROUTES) == set(), "add these decisions to LOCAL_ROUTES"
    assert set(LOCAL_ROUTES) - asked == set(), "no call asks for these any more"


@pytest.mark.parametrize(
    "decision", ["PlannedTasks", "Decision", "Reranking", "Answer", "Decomposition", "NextSentence",
                 "OverallPlanReply", "SynthesisReply", "SubQuestions"],
)  # fmt: skip
def test_planning_decomposition_and_written_answers_go_to_the_offline_twins(decision: str) -> None:
    assert not LOCAL_ROUTES[decision].to_model


@pytest.mark.parametrize(
    "decision", ["Selection", "Evaluation", "ModalityChoice", "ExaminationReply",
                 "SectionChoice", "Verification"],
)  # fmt: skip
def test_choices_and_verdicts_go_to_the_model_with_a_small_cap(decision: str) -> None:
    route = LOCAL_ROUTES[decision]
    assert route.to_model and route.max_tokens is not None and 0 < route.max_tokens <= 256


def test_an_unlisted_decision_goes_to_its_offline_twin() -> None:
    assert not local_route("SomethingNew").to_model


class Evaluation(BaseModel):
    status: str


class Plan(BaseModel):
    tasks: list[str]


class RecordingModel:
    """A chat model that answers `{"status": "answerable"}` and records its call kwargs."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def invoke(self, messages: Any, **kwargs: Any) -> AIMessage:
        self.calls.append(kwargs)
        return AIMessage('{"status": "answerable"}')


def test_the_local_caller_caps_routed_decisions_and_refuses_the_others() -> None:
    model = RecordingModel()
    caller = StructuredCaller(model, "smol", retries=0, backoff_s=0, local_routes=True)
    assert caller.call(Evaluation, "system", "user", CostMeter()).status == "answerable"
    assert model.calls[-1]["max_tokens"] == LOCAL_ROUTES["Evaluation"].max_tokens
    with pytest.raises(NotRouted, match="smol leaves Plan to its offline twin"):
        caller.call(Plan, "system", "user", CostMeter())
    assert len(model.calls) == 1  # the model was never asked to plan


def test_other_backends_send_every_decision_uncapped() -> None:
    model = RecordingModel()
    caller = StructuredCaller(model, "gpt", retries=0, backoff_s=0)
    caller.call(Evaluation, "system", "user", CostMeter())
    assert "max_tokens" not in model.calls[-1]


class Listing(BaseModel):
    label: Literal["a", "b"]
    names: list[str] = Field(min_length=1, max_length=10)
    note: str = Field(min_length=80, max_length=400)


def test_a_capped_route_bounds_free_strings_and_lists_but_not_choices() -> None:
    schema = bounded(Listing.model_json_schema(), max_items=3, max_chars=60)
    properties = schema["properties"]
    assert properties["label"] == Listing.model_json_schema()["properties"]["label"]  # an enum
    assert properties["names"]["maxItems"] == 3 and properties["names"]["items"]["maxLength"] == 60
    assert properties["note"]["maxLength"] == 80  # never below the schema's own minimum
    assert LOCAL_ROUTES["DocumentSummary"].reply_schema(schema) is schema  # the builder's own


def test_the_local_caller_sends_the_bounded_schema() -> None:
    model = RecordingModel()
    StructuredCaller(model, "smol", local_routes=True).call(Evaluation, "s", "u", CostMeter())
    sent = model.calls[-1]["response_format"]["json_schema"]["schema"]
    assert sent["properties"]["status"]["maxLength"] == LOCAL_ROUTES["Evaluation"].max_chars
