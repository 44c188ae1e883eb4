"""The offline decomposer: clause splitting, the limit on subqueries, keyword modality rules."""

from __future__ import annotations

import pytest

from nodes.lilac.decomposer import OfflineDecomposer
from nodes.lilac.heuristics import guess_modality, merge_to_limit, offline_subqueries, split_clauses
from tools.cost import CostMeter


@pytest.mark.parametrize(
    ("text", "modality"),
    [
        ("How many goals did the striker score in 2004", "table"),
        ("the total attendance of the final", "table"),
        ("the population of the town", "table"),
        ("what colour is the club's home shirt", "image"),
        ("what does the club logo look like", "image"),
        ("who founded the rowing club", "text"),
        ("the river on which the town is situated", "text"),
    ],
)
def test_modality_follows_the_papers_keyword_heuristics(text, modality):
    assert guess_modality(text) == modality


def test_clauses_are_cut_at_relative_pronouns_and_coordinated_clauses():
    question = (
        "What is the capacity of the mosque that is on the list of largest mosques , "
        "and that was opened to the public 22 February 1978 ?"
    )
    assert split_clauses(question) == [
        "What is the capacity of the mosque",
        "that is on the list of largest mosques",
        "that was opened to the public 22 February 1978",
    ]


def test_small_fragments_merge_into_their_neighbour():
    clauses = split_clauses("Which team , based in Bosnia and Herzegovina , won the cup in 1999 ?")
    assert all(len(clause.split()) >= 3 for clause in clauses)
    assert "Bosnia and Herzegovina" in " ".join(clauses)


def test_merge_to_limit_joins_the_shortest_neighbours():
    merged = merge_to_limit(["a b c d", "e f", "g h", "i j k l m"], 3)
    assert merged == ["a b c d", "e f g h", "i j k l m"]
    assert merge_to_limit(["x y z"], 1) == ["x y z"]


def test_offline_subqueries_put_the_whole_question_first_then_its_clauses():
    question = "Which club won the Sparrow Cup in 2002 , and when was that club founded ?"
    subqueries = offline_subqueries(question, 5)
    assert subqueries[0]["text"] == question
    assert [s["index"] for s in subqueries] == list(range(len(subqueries)))
    assert len(subqueries) == 3
    assert subqueries[1]["modality"] == "table"


def test_a_single_clause_question_is_not_split():
    (only,) = offline_subqueries("Who founded River Oars ?", 5)
    assert only == {"index": 0, "text": "Who founded River Oars ?", "modality": "text"}


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_offline_subqueries_respect_the_limit(limit):
    question = (
        "What is the name of the younger Japanese driver that was driving for a small "
        "constructor which competed in F1 from 1986 to 1991 , and who won a race in 1990 ?"
    )
    assert 1 <= len(offline_subqueries(question, limit)) <= limit


def test_offline_decomposer_records_how_it_decided():
    meter = CostMeter()
    plan = OfflineDecomposer(3).decompose("Who won the cup , and where was he born ?", meter)
    assert plan.decided_by == "offline"
    assert plan.subqueries
    assert meter.llm_calls == 0
