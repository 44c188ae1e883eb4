"""The reranker's ranking depends on what was found, never on the order it was found in."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from nodes.fusion import chain_ranking
from state.fif_state import Candidate
from tools.corpus_index import open_index
from tools.cost import CostMeter

QUESTION = "Which element did Marie Curie discover and where was she born?"
FOUND = [
    "marie_curie::p0", "marie_curie::p1", "warsaw::p0", "warsaw::p1", "polonium::p0",
    "radium::p0", "pierre_curie::p0", "nobel_prize_physics::t0", "university_of_paris::p1",
    "polonium::p1", "radium::p1",
]  # fmt: skip


def _candidates(ids: list[str]) -> dict[str, Candidate]:
    return {
        node: Candidate(
            component_id=node,
            doc_id=node.split("::")[0],
            kind="paragraph",
            score=0.5,
            step=0,
            via="",
        )  # fmt: skip
        for node in ids
    }


def test_any_discovery_order_gives_one_ranking(mini_index: Path) -> None:
    index = open_index(mini_index)
    orders = [
        FOUND,
        FOUND[::-1],
        *(random.Random(seed).sample(FOUND, len(FOUND)) for seed in range(4)),
    ]
    rankings = [
        [
            r["component_id"]
            for r in chain_ranking(index, QUESTION, [], _candidates(order), 10, CostMeter())[0]
        ]
        for order in orders
    ]
    assert len(rankings[0]) == 10
    assert all(a == b for a, b in itertools.pairwise(rankings)), rankings
