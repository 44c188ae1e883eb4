"""Per-system page figures of a long-document eval: every question counts, leaks are counted."""

from __future__ import annotations

import pytest

from evals.page_report import latest_lines, system_figures

BOX = {"doc": "deck", "page": 3, "bbox": [0.0, 0.0, 100.0, 100.0]}
QUESTIONS = [
    {"qid": "q1", "gold_pages": ["report#0"], "question_docs": ["report"],
     "modalities": ["chart"], "gold_regions": []},
    {"qid": "q2", "gold_pages": ["deck#3"], "question_docs": ["deck"],
     "modalities": ["figure"], "textless_evidence": True, "gold_regions": [BOX]},
    {"qid": "q3", "gold_pages": ["report#4"], "question_docs": ["report"],
     "modalities": ["text"], "gold_regions": []},
]  # fmt: skip


def test_failed_and_skipped_questions_count_as_misses_and_are_counted() -> None:
    lines = latest_lines(
        [
            {"qid": "q1", "system": "s", "pages": ["report#0"], "regions": []},
            {"qid": "q3", "system": "s", "ranking": [], "error": "ValueError: boom"},
        ]
    )  # q2 was never run (its gold was not in the index)
    found = system_figures(lines, QUESTIONS, "s", single_doc=True)
    assert found["n"] == 3 and found["PageRecall@1"] == pytest.approx(1 / 3, abs=1e-3)
    assert (found["errors"], found["not_run"], found["outside_scope"]) == (1, 1, 0)
    assert found["R@5_textless"] == 0.0 and found["textless_questions"] == 1
    assert found["RegionHit@10"] == 0.0 and found["region_questions"] == 1
    assert found["R@5_by_source"]["chart"] == 1.0 and found["R@5_by_source"]["text"] == 0.0


def test_a_rerun_line_replaces_the_older_one_and_regions_score() -> None:
    hit = {"doc": "deck", "page": 3, "bbox": [50.0, 50.0, 150.0, 150.0]}
    lines = latest_lines(
        [
            {"qid": "q2", "system": "s", "ranking": [], "error": "TimeoutError"},
            {"qid": "q2", "system": "s", "pages": ["deck#3"], "regions": [hit]},
        ]
    )
    found = system_figures(lines, QUESTIONS[1:2], "s", single_doc=False)
    assert found["errors"] == 0 and found["PageRecall@1"] == 1.0
    assert found["RegionHit@10"] == 1.0 and found["R@5_textless"] == 1.0


def test_pages_of_another_document_are_a_scope_leak_only_in_the_single_document_setting() -> None:
    lines = latest_lines([{"qid": "q1", "system": "s", "pages": ["report#0", "deck#1"]}])
    assert system_figures(lines, QUESTIONS[:1], "s", single_doc=True)["outside_scope"] == 1
    assert system_figures(lines, QUESTIONS[:1], "s", single_doc=False)["outside_scope"] == 0
