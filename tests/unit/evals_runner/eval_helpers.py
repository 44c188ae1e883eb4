"""Shared helpers of the eval harness tests: the tiny bundle, fake systems, line readers."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

from evals.datasets.questions import EvalExample
from evals.systems import RunConfig, SystemOutput, full_cost

DOCS = [
    (
        "louvre",
        "Louvre",
        [
            "The Louvre is the world's most visited art museum, in Paris.",
            "It houses the Mona Lisa painted by Leonardo da Vinci.",
        ],
    ),
    (
        "paris",
        "Paris",
        [
            "Paris is the capital of France on the river Seine.",
            "The Eiffel Tower was finished in 1889 for the World's Fair.",
        ],
    ),
    (
        "seine",
        "Seine",
        [
            "The Seine flows 777 kilometres through northern France.",
            "It empties into the English Channel at Le Havre.",
        ],
    ),
    (
        "leonardo",
        "Leonardo da Vinci",
        ["Leonardo da Vinci was born in Vinci in 1452.", "He died at Amboise in 1519."],
    ),
    (
        "amboise",
        "Amboise",
        [
            "Amboise is a town on the Loire with a royal castle.",
            "Its château holds the tomb of Leonardo da Vinci.",
        ],
    ),
    (
        "loire",
        "Loire",
        [
            "The Loire is the longest river in France.",
            "Its valley is known for vineyards and castles.",
        ],
    ),
]
QUESTIONS = [
    {
        "qid": "q1",
        "question": "Which museum houses the Mona Lisa?",
        "answers": ["the Louvre"],
        "gold_components": ["louvre::p1"],
        "hops": 1,
        "modalities": ["text"],
        "answer_source": "passage",
    },
    {
        "qid": "q2",
        "question": "When was the tower in the French capital finished?",
        "answers": ["1889"],
        "gold_components": ["paris::p0", "paris::p1"],
        "hops": 2,
        "modalities": ["text"],
        "answer_source": "passage",
    },
    {
        "qid": "q3",
        "question": "Where does the river of Paris end?",
        "answers": ["Le Havre"],
        "gold_components": ["paris::p0", "seine::p1"],
        "hops": 2,
        "modalities": ["text"],
    },
    {
        "qid": "q4",
        "question": "Where was the painter of the Mona Lisa born?",
        "answers": ["Vinci"],
        "gold_components": ["louvre::p1", "leonardo::p0"],
        "hops": 2,
        "modalities": ["text"],
    },
    {
        "qid": "q5",
        "question": "On which river is the town where Leonardo died?",
        "answers": ["Loire"],
        "gold_components": ["leonardo::p1", "amboise::p0"],
        "hops": 2,
        "modalities": ["text"],
        "answer_source": "passage",
    },
    {
        "qid": "q6",
        "question": "What is the longest river in France?",
        "answers": ["Loire"],
        "gold_components": ["loire::p0"],
        "hops": 1,
        "modalities": ["text"],
    },
]


def write_bundle(folder: Path, questions: list[dict] | None = None) -> Path:
    """Write corpus.jsonl and questions.jsonl of the tiny test bundle into folder."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = []
    for doc_id, title, paragraphs in DOCS:
        components = [
            {"component_id": f"{doc_id}::p{i}", "type": "paragraph", "text": text}
            for i, text in enumerate(paragraphs)
        ]
        docs.append({"doc_id": doc_id, "title": title, "components": components})
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps(doc) + "\n" for doc in docs), encoding="utf-8"
    )
    write_questions(folder, QUESTIONS if questions is None else questions)
    return folder


def write_questions(folder: Path, questions: list[dict]) -> None:
    lines = [q if isinstance(q, str) else json.dumps(q) for q in questions]
    (folder / "questions.jsonl").write_text("".join(f"{line}\n" for line in lines), "utf-8")


@dataclass(frozen=True)
class Corpus:
    bundle: Path
    index: Path


ALL_IDS = [f"{doc_id}::p{i}" for doc_id, _, paragraphs in DOCS for i in range(len(paragraphs))]


def scripted_ranking(system: str, qid: str) -> list[str]:
    """Return a deterministic ranking that differs per system and question."""
    offset = sum(map(ord, system + qid)) % len(ALL_IDS)
    return ALL_IDS[offset:] + ALL_IDS[:offset]


@dataclass
class FakeSystem:
    """A scripted system: fixed rankings, latency and cost; records every call."""

    name: str
    calls: list[str] = field(default_factory=list)
    fail_on: set[str] = field(default_factory=set)
    delay_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def retrieve(self, example: EvalExample, want_answer: bool) -> SystemOutput:
        import time

        with self.lock:
            self.calls.append(example.qid)
        if self.delay_s:
            time.sleep(self.delay_s)
        if example.qid in self.fail_on:
            raise RuntimeError(f"scripted failure on {example.qid}")
        answer = example.answers[0] if want_answer and example.qid.endswith(("1", "2")) else None
        latency = 10.0 * int(example.qid[1:]) + len(self.name)
        cost = full_cost({"vector_ms": 1.5, "llm_calls": 1 if self.name == "fake-b" else 0})
        return SystemOutput(scripted_ranking(self.name, example.qid), answer, cost, latency)


def check_config(config: RunConfig, system: FakeSystem) -> FakeSystem:
    assert isinstance(config, RunConfig)
    return system


def read_lines(path: Path) -> list[dict]:
    raw = path.read_bytes()
    assert raw.endswith(b"\n") or not raw, "results file must end with a newline"
    return [json.loads(line) for line in raw.decode("utf-8").splitlines()]
