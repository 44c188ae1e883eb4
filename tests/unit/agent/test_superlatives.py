"""Superlatives pick a table's row by its extreme value, which no word of the row repeats.

On a league table, "the team with the least capacity" is the row holding the smallest
capacity; cosine and BM25 alone prefer a row whose words match the question.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_runs import build_pages, paragraph_page

from nodes.core.superlatives import (
    cell_value,
    order_column,
    read_superlative,
    superlative_nodes,
    superlative_rows,
)
from nodes.fif.bridge import bridge_subquery, evidence_node
from state.fif_state import StepRecord
from state.tuning import FiFTuning
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.sparse_index import terms

TABLE = "league::table0"
HEADER = ["Team", "Arena", "Capacity", "Founded", "Coach height"]
ROWS = [
    ["Harbour Lions", "Lion Hall", "6,500", "12 March 1966", "6 ' 1"],
    ["Coast League Select", "Rover Dome", "5,000", "1979", "5 ' 11"],
    ["Mill Town", "Mill Arena", "3,800", "September 3 , 1991", "6 ' 4"],
    ["Cove United", "Cove Pavilion", "4,200", "1991", "6 ' 0"],
]
DOCUMENTS = [
    {
        "doc_id": "league",
        "title": "2012 Coast League",
        "components": [
            {
                "component_id": TABLE,
                "type": "table",
                "caption": "Teams of the 2012 Coast League",
                "table": {"header": HEADER, "rows": ROWS},
            }
        ],
    },
    paragraph_page("mill", "Mill Town", "Mill Town is a club sponsored as Mill Bank Basket."),
]
QUESTION = "What other name has the team with the least capacity of the 2012 Coast League?"


@pytest.fixture(scope="module")
def league_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder, index_dir = (tmp_path_factory.mktemp(n) for n in ("league", "league_index"))
    return build_pages(folder, index_dir, DOCUMENTS)


@pytest.mark.parametrize(
    ("question", "direction", "kind", "words", "rank"),
    [
        (QUESTION, "min", "number", {"capac"}, 1),
        ("Who had the second most points ?", "max", "number", {"point"}, 2),
        ("Who scored the 2nd most goals ?", "max", "number", {"goal"}, 2),
        ("Which is the 9th-most populous state ?", "max", "number", {"popul"}, 9),
        ("the fourth highest score", "max", "number", {"score"}, 4),
        ("What is the most recent season's champion ?", "max", "date", {"season"}, 1),
        ("Where was the tallest player born ?", "max", "number", {"height"}, 1),
        ("Which club is the oldest ?", "min", "date", {"found"}, 1),
    ],
    ids=["least", "second", "2nd", "9th", "fourth", "most-recent", "tallest", "oldest"],
)
def test_read_superlative(question, direction, kind, words, rank) -> None:
    read = read_superlative(question)
    assert read is not None and (read.direction, read.kind, read.rank) == (direction, kind, rank)
    assert words <= read.column_words
    assert read_superlative("Who founded the club that plays at Pier Park ?") is None


@pytest.mark.parametrize(
    ("cell", "kind", "value"),
    [
        ("6,500", "number", (6500.0,)),
        ("96.41%", "number", (96.41,)),
        ("6 ' 4", "number", (76,)),
        ("September 11 , 1970", "date", (1970.0, 9.0, 11.0)),
        ("27 September 1948", "date", (1948.0, 9.0, 27.0)),
        ("( 1982-01-12 ) January 12, 1982", "date", (1982.0, 1.0, 12.0)),
        ("9 May- 3 June", "date", (0.0, 5.0, 9.0)),
        ("1979", "date", (1979.0, 0.0, 0.0)),
        ("Graduated", "number", None),
        ("Graduated", "date", None),
    ],
)
def test_cell_value(cell: str, kind, value) -> None:
    assert cell_value(cell, kind) == value


def test_the_column_is_the_header_the_superlative_names_or_implies() -> None:
    least, tallest = read_superlative(QUESTION), read_superlative("the tallest coach")
    oldest, most = read_superlative("the oldest club"), read_superlative("the most titles")
    assert least is not None and order_column(HEADER, ROWS, least) == 2
    assert tallest is not None and order_column(HEADER, ROWS, tallest) == 4
    assert oldest is not None and order_column(HEADER, ROWS, oldest) == 3  # "founded"
    assert most is not None and order_column(HEADER, ROWS, most) is None  # no such column
    assert terms("Capacity") <= least.column_words


def test_rows_holding_the_extreme_value(league_index: Path) -> None:
    graph = open_index(league_index).graph

    def rows_of(question: str) -> list[int]:
        superlative = read_superlative(question)
        assert superlative is not None
        return superlative_rows(graph, superlative, TABLE)

    assert rows_of(QUESTION) == [2]
    assert rows_of("the team with the second largest capacity") == [1]
    assert rows_of("the youngest club by date founded") == [2]
    assert rows_of("the team with the most titles") == []  # no column names titles
    least, rows = read_superlative(QUESTION), graph.children(TABLE)
    assert least is not None
    assert {graph.node(r).attrs["order"] for r in superlative_nodes(graph, least, rows)} == {2}


def test_the_bridge_is_read_from_the_row_the_superlative_picks(league_index: Path) -> None:
    """Without the weight, the row naming the league wins on words."""
    index = open_index(league_index)
    plain = evidence_node(index, QUESTION, TABLE, 0.2, CostMeter())
    picked = evidence_node(index, QUESTION, TABLE, 0.2, CostMeter(), rules={"superlative": 1.0})
    assert index.graph.node(plain).attrs["order"] == 1
    assert index.graph.node(picked).attrs["order"] == 2
    step: StepRecord = {
        "step": 0, "subquery_index": 0, "subquery": QUESTION, "anchor": None,
        "strategy": {"doc_mode": "vector", "comp_mode": "vector", "granularity": "document"},
        "documents": [], "components": [{"id": TABLE, "doc_id": "league", "kind": "table",
        "score": 0.9}], "success": True, "answerable": False, "reason": "",
        "decided_by": "offline", "notes": [], "cost": {},
    }  # fmt: skip
    bridge = bridge_subquery(index, QUESTION, step, FiFTuning(superlative_weight=1.0), CostMeter())
    assert bridge is not None and bridge.text.startswith("Mill Town")
