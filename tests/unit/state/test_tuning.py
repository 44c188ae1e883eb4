import pytest
from pydantic import ValidationError

from state.context import Context
from state.tuning import FiFTuning


def test_every_tuned_constant_documents_what_it_trades() -> None:
    for name, field in FiFTuning.model_fields.items():
        assert field.description and len(field.description) > 40, name


def test_tuning_is_set_from_context_as_an_object_or_a_dict() -> None:
    assert Context().tuning == FiFTuning()
    context = Context.model_validate({"tuning": {"chain_margin": 0.1, "global_search": "dense"}})
    assert context.tuning.chain_margin == 0.1 and context.tuning.global_search == "dense"
    with pytest.raises(ValidationError):
        Context.model_validate({"tuning": {"chain_margn": 0.1}})  # a typo is refused
    with pytest.raises(ValidationError):
        FiFTuning(global_search="fuzzy")  # type: ignore[arg-type]


def test_a_changed_constant_changes_the_ranking(mini_index) -> None:  # type: ignore[no-untyped-def]
    from graph_agent.api import ask

    question = "What colours are the stripes on the flag of the city where Marie Curie was born?"
    base = ask(question, Context(index_dir=str(mini_index)))
    strict = ask(question, Context(index_dir=str(mini_index), tuning=FiFTuning(success_score=0.99)))
    assert base.history != strict.history  # a stricter evaluator walks another route


def test_tuning_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIF_TUNING", '{"link_prior": 2.0}')
    assert Context.from_env().tuning.link_prior == 2.0
    monkeypatch.setenv("FIF_TUNING", "[1]")
    with pytest.raises(ValidationError, match="FIF_TUNING"):
        Context.from_env()
    monkeypatch.setenv("FIF_TUNING", "{oops")
    with pytest.raises(ValidationError, match="not JSON"):
        Context.from_env()
