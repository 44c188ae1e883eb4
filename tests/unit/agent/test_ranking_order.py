"""The reranker's ranking depends on what was found, never on the order it was found in."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from nodes.fif.fusion import chain_ranking, keep_in_top, with_lexical_facet
from state.fif_state import Candidate
from state.tuning import FiFTuning
from tools.component_terms import full_text, lexical_text
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


def test_lexical_facet_rewards_the_question_rare_words(mini_index: Path) -> None:
    index = open_index(mini_index)
    ids = ["polonium::p0", "warsaw::p0", "nobel_prize_physics::t0"]
    cosines = np.zeros((len(ids), 2), dtype=np.float32)
    profile = with_lexical_facet(index, "Who named polonium?", ids, cosines, 0.5)
    assert profile.shape == (3, 3)
    assert profile[:, :2].tolist() == cosines.tolist()  # the cosine facets are untouched
    assert profile[0, 2] == pytest.approx(0.5)  # the best match scores the weight
    assert profile[1, 2] == 0.0  # no word of the question, no lexical credit


def test_lexical_weight_lifts_the_candidates_holding_the_question_words(
    mini_index: Path,
) -> None:
    index = open_index(mini_index)
    question = "Where was the discoverer of polonium born?"
    found = _candidates(FOUND)

    def single(weight: float) -> dict[str, float]:
        tuning = FiFTuning(rerank_lexical_weight=weight)
        return chain_ranking(index, question, [], found, 10, CostMeter(), tuning)[1]

    plain, lexical = single(0.0), single(0.5)
    gain = {node: lexical[node] - plain[node] for node in FOUND}
    assert max(gain, key=gain.__getitem__).startswith("polonium")
    assert min(gain.values()) >= 0.0


def test_the_lexical_text_carries_the_section_headings(
    filing_index: Path, mini_index: Path
) -> None:
    filing = open_index(filing_index)
    table = "acme_2023_10k::t0"  # reads "Year ended December 31," and rows
    assert "discussion" not in full_text(filing.graph, table).lower()
    heading = "Item 7. Management's Discussion and Analysis"
    assert lexical_text(filing.graph, table).endswith(heading)
    ids = [table, "acme_2023_10k::p4"]
    profile = with_lexical_facet(
        filing, "management discussion", ids, np.zeros((2, 1), np.float32), 0.5
    )
    assert profile[:, 1].tolist() == [0.5, 0.0]
    mini = open_index(mini_index)  # a page without sections: the component's text alone
    assert lexical_text(mini.graph, "polonium::p0") == full_text(mini.graph, "polonium::p0")


def test_a_subquery_find_stays_in_the_top_k_however_chains_rank(mini_index: Path) -> None:
    index = open_index(mini_index)
    found = _candidates(FOUND)
    unkept = [
        r["component_id"] for r in chain_ranking(index, QUESTION, [], found, 3, CostMeter())[0]
    ]
    last = FOUND[-1] if FOUND[-1] not in unkept else FOUND[-2]  # below the top 3
    ranked = chain_ranking(index, QUESTION, [], found, 3, CostMeter(), finds=[last, "absent::p0"])
    kept = [r["component_id"] for r in ranked[0]]
    assert kept == [*unkept[:2], last]  # it takes the last place; a find never found is ignored


@pytest.mark.parametrize(
    ("placed", "kept", "k", "expected"),
    [
        (["a", "b", "c", "d"], ["d"], 3, ["a", "b", "d"]),
        (["a", "b", "c", "d"], ["c", "d"], 3, ["a", "d", "c"]),  # d takes b's place
        (["a", "b"], ["d"], 3, ["a", "b", "d"]),
        (["a", "b", "c"], ["a", "b", "c", "d"], 3, ["a", "b", "c"]),  # no place left to take
    ],
)
def test_keep_in_top(placed, kept, k, expected) -> None:
    assert keep_in_top(placed, kept, k) == expected
