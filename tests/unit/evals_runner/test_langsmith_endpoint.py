"""run_langsmith against a real LangGraph system: no request unless a key is configured.

A LangSmith API on loopback (langsmith_fake.py) counts the requests; a socket guard counts
every other connection and name lookup.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from eval_helpers import Corpus, FakeSystem
from langsmith_fake import FakeLangSmith, fake_langsmith

from evals.datasets.questions import load_questions
from evals.langsmith_eval import run_langsmith
from evals.systems import RunConfig

LANGSMITH_ENV = (
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGSMITH_ENDPOINT",
    "LANGCHAIN_ENDPOINT",
    "LANGSMITH_TRACING",
    "LANGCHAIN_TRACING_V2",
    "LANGSMITH_PROJECT",
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLangSmith]:
    """A fresh loopback LangSmith, with every LangSmith variable of the environment unset."""
    for variable in LANGSMITH_ENV:
        monkeypatch.delenv(variable, raising=False)
    with fake_langsmith() as state:
        yield state


@pytest.fixture
def outside(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record and refuse every connection or name lookup that leaves 127.0.0.1."""
    attempts: list[object] = []
    connect, lookup = socket.socket.connect, socket.getaddrinfo

    def guarded_connect(self: socket.socket, address: object) -> None:
        if not (isinstance(address, tuple) and address[0] == "127.0.0.1"):
            attempts.append(address)
            raise OSError(f"network disabled in this test: {address}")
        connect(self, address)

    def guarded_lookup(host: object, *args: object, **kwargs: object) -> object:
        if host not in ("127.0.0.1", "localhost"):
            attempts.append(host)
            raise OSError(f"name lookup disabled in this test: {host}")
        return lookup(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", guarded_lookup)
    return attempts


def test_unconfigured_a_langgraph_system_sends_nothing(
    corpus: Corpus, server: FakeLangSmith, outside: list[object]
) -> None:
    examples = load_questions(corpus.bundle / "questions.jsonl").examples[:2]
    scores = run_langsmith(["fif"], examples, RunConfig(str(corpus.index)))
    assert outside == [], "LangChain's tracer must not reach the default LangSmith endpoint"
    assert server.requests == []
    assert scores["fif"]["n"] == 2


def test_an_endpoint_without_a_key_stays_offline_even_with_tracing_on(
    corpus: Corpus, server: FakeLangSmith, outside: list[object], monkeypatch
) -> None:
    monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    examples = load_questions(corpus.bundle / "questions.jsonl").examples[:2]
    run_langsmith(["fif"], examples, RunConfig(str(corpus.index)))
    assert server.requests == []
    assert outside == []


def test_with_an_endpoint_and_a_key_results_upload(
    corpus: Corpus,
    fakes: dict[str, FakeSystem],
    server: FakeLangSmith,
    outside: list[object],
    monkeypatch,
) -> None:
    monkeypatch.setenv("LANGSMITH_ENDPOINT", server.url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-dummy-key-for-a-loopback-test")
    examples = load_questions(corpus.bundle / "questions.jsonl").examples
    scores = run_langsmith(["fake-a"], examples, RunConfig(str(corpus.index)), dataset_name="t")
    assert outside == []
    assert fakes["fake-a"].calls == [ex.qid for ex in examples]
    assert [d["name"] for d in server.datasets.values()] == ["t"]
    assert sorted(ex["metadata"]["qid"] for ex in server.examples) == sorted(
        ex.qid for ex in examples
    )
    assert "/sessions" in server.paths("POST"), "the experiment is created on the server"
    assert any(path.startswith("/runs") for path in server.paths("POST")), server.requests
    assert "/feedback" in server.paths("POST"), "the evaluators' scores are uploaded"
    assert scores["fake-a"]["n"] == len(examples)
