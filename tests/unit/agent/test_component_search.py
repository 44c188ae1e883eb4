"""A component stage may rank by BM25 or by fused ranks; kept components keep dense scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from nodes.fif.traversal import Traversal, component_scores, component_stage
from state.fif_state import Found, Strategy
from state.tuning import FiFTuning
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.search import score_sparse

SUBQUERY = "Which element did Marie Curie discover in Paris?"
STRATEGY: Strategy = {
    "doc_mode": "vector", "comp_mode": "vector", "granularity": "subcomponent"
}  # fmt: skip


def _ranked(mini_index: Path, mode: str) -> list[Found]:
    index = open_index(mini_index)
    docs: list[Found] = [
        {"id": d, "doc_id": d, "kind": "document", "score": 0.0}
        for d in ("marie_curie", "polonium", "warsaw", "university_of_paris")
    ]
    tuning = FiFTuning(component_search=mode)  # type: ignore[arg-type]
    traversal = Traversal(index, SUBQUERY, index.embed_query(SUBQUERY), STRATEGY,
                          lambda *_: [], CostMeter(), tuning, 20, 20, 20)  # fmt: skip
    return component_stage(traversal, docs, None)


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_kept_components_keep_their_dense_scores(mini_index: Path, mode: str) -> None:
    index = open_index(mini_index)
    found = _ranked(mini_index, mode)
    dense = component_scores(index, index.embed_query(SUBQUERY), [f["id"] for f in found],
                             CostMeter())  # fmt: skip
    assert found and all(f["score"] == round(dense[f["id"]][0], 5) for f in found)


def test_sparse_components_follow_bm25_and_dense_ones_the_cosine(mini_index: Path) -> None:
    index = open_index(mini_index)
    docs = ["marie_curie", "polonium", "warsaw", "university_of_paris"]
    bm25 = [h.node_id for h in score_sparse(index, SUBQUERY, "component", "subcomponent", 20,
                                            docs)]  # fmt: skip
    sparse = [f["id"] for f in _ranked(mini_index, "sparse")]
    assert sparse[: len(bm25)] == bm25
    dense = _ranked(mini_index, "dense")
    assert [f["score"] for f in dense] == sorted((f["score"] for f in dense), reverse=True)
    hybrid = [f["id"] for f in _ranked(mini_index, "hybrid")]
    assert sorted(hybrid) == sorted(f["id"] for f in dense) and hybrid != sparse
