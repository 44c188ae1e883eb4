"""The system registry: dense on a real tiny index, FiF and ablations through a fake `ask`."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import Corpus

import evals.systems
import graph_agent.fif_graph
from evals.datasets.questions import EvalExample
from evals.systems import (
    COST_KEYS,
    GraphSystem,
    RunConfig,
    make_system,
    question_text,
)
from graph_agent.registry import FIF_ABLATIONS
from graph_agent.results import RunResult
from nodes.core.decision import Decided
from state.ircot_state import IrcotContext
from state.lilac_state import LilacContext
from tools.errors import ConfigError

EXAMPLE = EvalExample("q1", "Which museum houses the Mona Lisa?", ("the Louvre",), ("louvre::p1",))
TURN = EvalExample(
    "t2",
    "Where was he born?",
    ("Vinci",),
    ("leonardo::p0",),
    history=("Who painted the Mona Lisa?",),
)


def test_conversational_turns_are_asked_with_earlier_questions_first() -> None:
    assert question_text(EXAMPLE) == EXAMPLE.question
    assert question_text(TURN) == "Who painted the Mona Lisa?\nWhere was he born?"


def test_dense_ranks_components_with_a_full_cost(corpus: Corpus) -> None:
    system = make_system("dense", RunConfig(str(corpus.index)))
    output = system.retrieve(EXAMPLE, want_answer=False)
    assert len(output.ranking) == 10 and all("::p" in cid for cid in output.ranking)
    assert output.answer is None
    assert set(output.cost) == set(COST_KEYS) and output.cost["embedding_ms"] > 0
    assert output.latency_ms > 0


def test_dense_asks_the_answerer_with_its_ranking(corpus: Corpus, monkeypatch) -> None:
    seen = {}

    def decide_answer(index, question, component_ids, context, meter):
        seen.update(question=question, ids=list(component_ids), answer_flag=context.answer)
        meter.add_llm_usage("gpt-5-mini", 1000, 250)
        return Decided("the Louvre", "llm")

    monkeypatch.setattr(evals.systems, "decide_answer", decide_answer)
    system = make_system("dense", RunConfig(str(corpus.index)))
    output = system.retrieve(TURN, want_answer=True)
    assert output.answer == "the Louvre"
    assert seen["question"] == question_text(TURN) and seen["ids"] == output.ranking
    assert output.cost["llm_calls"] == 1 and output.cost["usd"] == pytest.approx(0.00075)
    assert system.retrieve(TURN, want_answer=False).answer is None


@pytest.mark.parametrize("name", ["fif", *FIF_ABLATIONS])
def test_fif_and_ablations_set_their_context(name: str, monkeypatch, tmp_path: Path) -> None:
    contexts = []

    def fake_ask(question, context, **_):
        contexts.append(context)
        ranking = [
            {"component_id": "louvre::p1", "doc_id": "louvre", "type": "paragraph", "score": 0.9}
        ]
        return RunResult(ranking, answer="Louvre", cost={"llm_calls": 2.0})

    monkeypatch.setattr(graph_agent.fif_graph, "ask_fif", fake_ask)
    config = RunConfig(str(tmp_path), "http://chroma:8000", "openai", top_k=7)
    system = make_system(name, config)
    output = system.retrieve(TURN, want_answer=True)
    assert output.ranking == ["louvre::p1"] and output.answer == "Louvre"
    assert output.cost["llm_calls"] == 2.0 and set(output.cost) == set(COST_KEYS)
    context = contexts[0]
    assert (context.index_dir, context.chroma_url, context.backend, context.top_k) == (
        str(tmp_path),
        "http://chroma:8000",
        "openai",
        7,
    )
    assert context.answer is True
    switches = {f for sets in FIF_ABLATIONS.values() for f in sets if getattr(context, f)}
    assert switches == (set(FIF_ABLATIONS[name]) if name in FIF_ABLATIONS else set())
    assert system.retrieve(TURN, want_answer=False).answer is None
    assert contexts[1].answer is False


@pytest.mark.parametrize(
    ("name", "kind"),
    [("lilac", LilacContext), ("ircot", IrcotContext), ("ircot-dense", IrcotContext)],
)
def test_baseline_graphs_run_with_their_own_context(name: str, kind: type, tmp_path: Path) -> None:
    config = RunConfig(str(tmp_path), "http://chroma:8000", "openai", top_k=7)
    system = make_system(name, config)
    assert isinstance(system, GraphSystem) and isinstance(system.context, kind)
    assert system.name == name
    if isinstance(system.context, IrcotContext):  # the paper's BM25, or the dense variant
        expected = "dense" if name == "ircot-dense" else "sparse"
        assert system.context.search_mode == expected
    context = system.context
    assert (context.index_dir, context.chroma_url, context.backend, context.top_k) == (
        str(tmp_path),
        "http://chroma:8000",
        "openai",
        7,
    )


def test_shared_settings_from_the_environment_reach_every_eval_system(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FIF_TUNING", '{"chain_margin": 0.2}')
    monkeypatch.setenv("FIF_CHAT_MODEL", "my-local-model")
    monkeypatch.setenv("FIF_TOP_K", "3")  # the run config's k wins
    config = RunConfig(str(tmp_path), None, "openai", top_k=7)
    for name in ("fif", "lilac", "reagent", "extraction", "fif-dense-global"):
        context = make_system(name, config).context  # type: ignore[attr-defined]
        assert (context.chat_model, context.top_k, context.backend) == (
            "my-local-model",
            7,
            "openai",
        )
        if name.startswith("fif"):  # FiF's tuning is FiF's own: no other system has it
            assert context.tuning.chain_margin == 0.2 or name == "fif-dense-global"
        else:
            assert not hasattr(context, "tuning")
    variant = make_system("fif-dense-global", config).context  # type: ignore[attr-defined]
    assert variant.tuning.global_search == "dense"  # a variant's own setting wins


def test_unknown_system_names_every_known_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        make_system("colbert", RunConfig(str(tmp_path)))
    for name in ("dense", "fif", "lilac", "ircot", *FIF_ABLATIONS):
        assert name in str(err.value)


def test_dense_with_the_real_offline_answerer(corpus: Corpus) -> None:
    system = make_system("dense", RunConfig(str(corpus.index)))
    output = system.retrieve(EXAMPLE, want_answer=True)
    assert isinstance(output.answer, str) and output.answer
    assert output.cost["llm_calls"] == 0, "the offline backend calls no model"
