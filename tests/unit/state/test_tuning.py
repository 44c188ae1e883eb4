import pytest
from pydantic import ValidationError

from state.fif_context import FiFContext
from state.reader_tuning import ReaderTuning
from state.settings import RunSettings
from state.tuning import FiFTuning


@pytest.mark.parametrize("tuning", [FiFTuning, ReaderTuning])
def test_every_tuned_constant_documents_what_it_trades(tuning: type[FiFTuning]) -> None:
    for name, field in tuning.model_fields.items():
        assert field.description and len(field.description) > 40, name


def test_tuning_is_set_from_context_as_an_object_or_a_dict() -> None:
    assert FiFContext().tuning == FiFTuning()
    context = FiFContext.model_validate({"tuning": {"chain_margin": 0.1, "global_search": "dense"}})
    assert context.tuning.chain_margin == 0.1 and context.tuning.global_search == "dense"
    with pytest.raises(ValidationError):
        FiFContext.model_validate({"tuning": {"chain_margn": 0.1}})  # a typo is refused
    with pytest.raises(ValidationError):
        FiFTuning(global_search="fuzzy")  # type: ignore[arg-type]


def test_fif_tuning_is_fifs_own() -> None:
    with pytest.raises(ValidationError, match="tuning"):
        RunSettings.model_validate({"tuning": {"chain_margin": 0.1}})  # not a shared setting


def test_a_changed_constant_changes_the_ranking(mini_index) -> None:  # type: ignore[no-untyped-def]
    from graph_agent.api import ask

    question = "What colours are the stripes on the flag of the city where Marie Curie was born?"
    base = ask(question, FiFContext(index_dir=str(mini_index)))
    strict = ask(
        question, FiFContext(index_dir=str(mini_index), tuning=FiFTuning(success_score=0.99))
    )
    assert base.history != strict.history  # a stricter evaluator walks another route


def test_tuning_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIF_TUNING", '{"link_prior": 2.0}')
    assert FiFContext.from_env().tuning.link_prior == 2.0
    monkeypatch.setenv("FIF_TUNING", "[1]")
    with pytest.raises(ValidationError, match="FIF_TUNING"):
        FiFContext.from_env()
    monkeypatch.setenv("FIF_TUNING", "{oops")
    with pytest.raises(ValidationError, match="not JSON"):
        FiFContext.from_env()


def test_reader_tuning_from_the_environment_or_a_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIF_READER", '{"pivot_bonus": 2.0}')
    assert RunSettings.from_env().reader == ReaderTuning(pivot_bonus=2.0)
    assert FiFContext.from_env().reader == ReaderTuning(pivot_bonus=2.0)  # shared by every system
    monkeypatch.delenv("FIF_READER")
    assert RunSettings().reader == ReaderTuning()
    context = RunSettings.model_validate({"reader": {"read_components": 3}})
    assert context.reader.read_components == 3
    monkeypatch.setenv("FIF_READER", '{"pivot_bonsu": 2.0}')
    with pytest.raises(ValidationError, match="pivot_bonsu"):
        RunSettings.from_env()  # a typo inside the reader's object is refused too


def test_the_answer_reads_the_context_reader_tuning(mini_index) -> None:  # type: ignore[no-untyped-def]
    from nodes.core.answering import answer_text, decide_answer
    from tools.corpus_index import open_index
    from tools.cost import CostMeter

    question = "What colours are the stripes on the flag of the city where Marie Curie was born?"
    ids = ["warsaw::p1", "marie_curie::p0", "university_of_paris::p0"]
    index = open_index(str(mini_index))

    def answer(reader: ReaderTuning) -> str | None:
        context = RunSettings(index_dir=str(mini_index), reader=reader)
        return answer_text(decide_answer(index, question, ids, context, CostMeter()))

    assert answer(ReaderTuning()) == "Marie Salomea Skłodowska-Curie"
    assert answer(ReaderTuning(read_components=1)) == "New Town"  # Warsaw's page only
