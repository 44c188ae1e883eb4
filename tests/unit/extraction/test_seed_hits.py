"""The loop's first search in a chosen filing also asks for a named metric's input lines."""

from __future__ import annotations

import pytest

from nodes.extraction import sections
from state.extraction_state import ExtractionContext
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.search import ScoredNode

QUESTION = "What is ACME's FY2022 operating margin?"
RUNS = {  # what each text's search returns, best first
    QUESTION: ["t:p2", "t:p1", "t:p0"],
    "operating income": ["t:t0", "t:p2"],
    "revenue": ["t:p3", "t:t0"],
}


@pytest.fixture
def searched(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    asked: list[str] = []

    def search(
        index: object, text: str, target: str, layer: str, k: int, *rest: object
    ) -> list[ScoredNode]:
        asked.append(text)
        return [
            ScoredNode(n, "t", "paragraph", 1.0 / (i + 1), n) for i, n in enumerate(RUNS[text])
        ][:k]

    monkeypatch.setattr(sections, "score_nodes", search)
    return asked


def _ids(hits: list[ScoredNode]) -> list[str]:
    return [hit.node_id for hit in hits]


def test_in_a_chosen_filing_the_lines_join_the_questions_hits(
    filings_index: str, searched: list[str]
) -> None:
    index = open_index(filings_index).scoped(["acme_2022_10k"])
    context = ExtractionContext(index_dir=filings_index, seed_hits=4)
    hits = sections.seed_hits(index, QUESTION, None, context, CostMeter())
    assert searched == [QUESTION, "operating income", "revenue"]
    # reciprocal rank fusion (k 60), the question's ranking counted twice: t:p2 2/60 + 1/61,
    # t:t0 (first and second for the lines) 1/60 + 1/61, t:p1 2/61, t:p0 2/62; t:p3, first
    # for one line only (1/60), is fifth and past seed_hits
    assert _ids(hits) == ["t:p2", "t:t0", "t:p1", "t:p0"]


def test_a_shared_store_or_a_question_without_a_metric_searches_once(
    filings_index: str, searched: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    context = ExtractionContext(index_dir=filings_index, seed_hits=4)
    shared = sections.seed_hits(open_index(filings_index), QUESTION, None, context, CostMeter())
    assert searched == [QUESTION] and _ids(shared) == RUNS[QUESTION]
    monkeypatch.setitem(RUNS, "Who audits ACME?", ["t:p0"])
    scoped = open_index(filings_index).scoped(["acme_2022_10k"])
    assert _ids(sections.seed_hits(scoped, "Who audits ACME?", None, context, CostMeter())) == [
        "t:p0"
    ]
