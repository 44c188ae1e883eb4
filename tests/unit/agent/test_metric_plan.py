"""The offline planner asks for a metric's input lines inside a chosen filing, and only there."""

from __future__ import annotations

from pathlib import Path

from nodes.fif.plan_heuristics import decompose
from tools.corpus_index import open_index

QUESTION = "What is ACME's FY2023 inventory turnover ratio?"


def test_a_scoped_question_naming_a_metric_asks_for_its_input_lines(filing_index: Path) -> None:
    index = open_index(str(filing_index))
    scoped = index.scoped(list(index.graph.documents()))
    assert decompose(scoped, QUESTION, 5) == [QUESTION, "cost of sales", "inventories"]
    assert decompose(scoped, QUESTION, 2) == [QUESTION, "cost of sales"]


def test_a_shared_store_or_a_question_without_a_metric_keeps_one_subquery(
    filing_index: Path,
) -> None:
    index = open_index(str(filing_index))
    assert decompose(index, QUESTION, 5) == [QUESTION]  # the lines would match any filing
    scoped = index.scoped(list(index.graph.documents()))
    plain = "Who audits ACME's financial statements?"
    assert decompose(scoped, plain, 5) == [plain]
