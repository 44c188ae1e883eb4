"""langsmith.evaluate with our metrics, fully offline: no socket is ever opened."""

from __future__ import annotations

import socket
import uuid
from pathlib import Path

import pytest
from eval_helpers import Corpus, FakeSystem

from evals.datasets.questions import load_questions
from evals.langsmith_data import sync_dataset
from evals.langsmith_eval import evaluators, run_langsmith
from evals.report import ANSWER_KEYS, QA_KEYS, RETRIEVAL_KEYS, build_report
from evals.results_log import read_latest
from evals.runner import run
from evals.systems import RunConfig


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Refuse and record every outgoing connection; point LangSmith at a dead port."""
    attempts: list[object] = []

    def refuse(self: socket.socket, address: object) -> None:
        attempts.append(address)
        raise OSError(f"network disabled in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.delenv("LANGSMITH_API_KEY", raising=False)
    monkeypatch.delenv("LANGCHAIN_API_KEY", raising=False)
    monkeypatch.setenv("LANGSMITH_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("LANGSMITH_TRACING", "true")  # even with tracing asked for, stay local
    return attempts


def test_offline_scores_match_the_report(
    corpus: Corpus, fakes: dict[str, FakeSystem], no_network: list[object], tmp_path: Path
) -> None:
    examples = load_questions(corpus.bundle / "questions.jsonl").examples
    config = RunConfig(str(corpus.index))
    scores = run_langsmith(["fake-a", "fake-b"], examples, config, want_answer=True)
    assert no_network == []
    assert fakes["fake-a"].calls == [ex.qid for ex in examples]

    run(["fake-a", "fake-b"], corpus.bundle, corpus.index, tmp_path, answer=True, progress=False)
    report = build_report(read_latest(tmp_path / "results.jsonl"), examples)
    for rep in report.systems:
        for key in (*RETRIEVAL_KEYS, *QA_KEYS, *ANSWER_KEYS):
            assert scores[rep.system][key] == pytest.approx(rep.quality[key]), (rep.system, key)
        assert scores[rep.system]["n"] == 6


def test_cached_results_are_replayed_without_asking_systems(
    corpus: Corpus, fakes: dict[str, FakeSystem], no_network: list[object], tmp_path: Path
) -> None:
    run(["fake-a"], corpus.bundle, corpus.index, tmp_path, progress=False)
    fakes["fake-a"].calls.clear()
    examples = load_questions(corpus.bundle / "questions.jsonl").examples
    cached = read_latest(tmp_path / "results.jsonl")
    scores = run_langsmith(
        ["fake-a"], examples, RunConfig(str(corpus.index)), want_answer=True, cached=cached
    )
    assert fakes["fake-a"].calls == []
    assert "EM" not in scores["fake-a"], "no answers in the run: no EM, as in the report"
    report = build_report(cached, examples)
    assert scores["fake-a"]["MRR@10"] == pytest.approx(report.systems[0].quality["MRR@10"])
    assert no_network == []


def test_evaluators_return_key_and_score() -> None:
    found = {fn.__name__: fn for fn in evaluators(want_answer=True)}
    assert set(found) == {
        "R@1",
        "R@2",
        "R@5",
        "R@10",
        "AllGold@5",
        "AllGold@10",
        "MRR@10",
        "EM",
        "F1",
        "Answered",
        "Correct",
    }
    gold = {"gold_components": ["a", "b"], "answers": ["Paris"]}
    money = {"gold_components": ["a"], "answers": ["$303.00"]}
    asked = {"question": "What is it? Answer in USD millions."}
    assert found["Correct"](asked, {"answer": "$0.303 billion"}, money)["score"] == 1.0
    assert found["Correct"](asked, {"answer": "$303 thousand"}, money)["score"] == 0.0
    assert found["Answered"](asked, {"answer": "fail"}, money)["score"] == 0.0
    assert found["MRR@10"]({"ranking": ["x", "b"]}, gold) == {"key": "MRR@10", "score": 0.5}
    assert found["EM"]({"answer": "paris"}, gold) == {"key": "EM", "score": 1.0}
    assert found["F1"]({"answer": "x"}, {**gold, "answers": []})["score"] is None


class FakeClient:
    """The few Client methods sync_dataset uses, in memory."""

    def __init__(self) -> None:
        self.datasets: dict[str, uuid.UUID] = {}
        self.examples: list[object] = []
        self.created: list[dict] = []

    def has_dataset(self, *, dataset_name: str) -> bool:
        return dataset_name in self.datasets

    def create_dataset(self, name: str, **_: object) -> None:
        self.datasets[name] = uuid.uuid4()

    def read_dataset(self, *, dataset_name: str) -> object:
        return type("Dataset", (), {"id": self.datasets[dataset_name]})()

    def list_examples(self, *, dataset_name: str) -> list[object]:
        return list(self.examples)

    def create_examples(self, *, dataset_name: str, examples: list[dict]) -> None:
        from langsmith.schemas import Example

        self.created += examples
        self.examples += [Example(dataset_id=self.datasets[dataset_name], **ex) for ex in examples]


def test_sync_dataset_adds_only_missing_examples(corpus: Corpus) -> None:
    examples = load_questions(corpus.bundle / "questions.jsonl").examples
    client = FakeClient()
    first = sync_dataset(client, "fif-test", examples[:4])
    assert [ex.metadata["qid"] for ex in first] == ["q1", "q2", "q3", "q4"]
    second = sync_dataset(client, "fif-test", examples)
    assert [ex.metadata["qid"] for ex in second] == [ex.qid for ex in examples]
    assert [ex["metadata"]["qid"] for ex in client.created] == [ex.qid for ex in examples]
    assert second[0].outputs["gold_components"] == ["louvre::p1"]


def test_an_unreachable_langsmith_is_one_clear_error(
    corpus: Corpus, fakes: dict[str, FakeSystem], no_network: list[object], monkeypatch
) -> None:
    import langsmith
    from langsmith.utils import LangSmithConnectionError

    from evals.langsmith_eval import LangSmithUnavailableError

    class DeadClient:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def has_dataset(self, *args: object, **kwargs: object) -> bool:
            raise LangSmithConnectionError("Connection error caused failure to GET /datasets")

        read_dataset = create_dataset = list_examples = has_dataset

    monkeypatch.setattr(langsmith, "Client", DeadClient)
    examples = load_questions(corpus.bundle / "questions.jsonl").examples
    with pytest.raises(LangSmithUnavailableError, match=r"LangSmith at http://127.0.0.1:9 failed"):
        run_langsmith(["fake-a"], examples, RunConfig(str(corpus.index)), upload=True)
