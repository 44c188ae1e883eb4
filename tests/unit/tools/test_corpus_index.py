from pathlib import Path

import numpy as np
import pytest

from tools.corpus_index import CorpusIndex, open_index
from tools.errors import IndexMismatchError, IndexNotFoundError
from tools.manifest import Manifest

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


def test_an_unfinished_build_is_refused(tmp_path: Path, hash_build) -> None:
    hash_build(MINI, tmp_path / "index")
    manifest = Manifest.load(tmp_path / "index")
    manifest.complete = False
    manifest.save(tmp_path / "index")
    with pytest.raises(IndexNotFoundError, match="did not finish; re-run `fif build"):
        CorpusIndex.open(tmp_path / "index")


def test_an_embedder_dimension_change_is_refused(tmp_path: Path, hash_build) -> None:
    hash_build(MINI, tmp_path / "index")
    manifest = Manifest.load(tmp_path / "index")
    manifest.text_embedder.dim = 32
    manifest.save(tmp_path / "index")
    with pytest.raises(IndexMismatchError, match="built with dim 32, but hash:64 now gives 64"):
        CorpusIndex.open(tmp_path / "index")


def test_a_missing_index_is_reported(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="no FiF index here"):
        CorpusIndex.open(tmp_path)


def test_queries_are_embedded_once_and_shared(mini_index: Path) -> None:
    index = open_index(str(mini_index))
    assert open_index(str(mini_index)) is index
    assert (index.image_embedder, index.graph.counts()["document"]) == (None, 8)
    first = index.embed_query("flag of Warsaw")
    assert index.embed_query("flag of Warsaw") is first
    batch = index.embed_queries(["radium", "flag of Warsaw", "radium"])
    assert batch[1] is first and batch[0] is batch[2]
    assert np.allclose(batch[0], index.text_embedder.embed(["radium"])[0])
    with pytest.raises(IndexMismatchError, match="has no image embedder"):
        index.embed_query("flag", space="image")


def _reference_best(index: CorpusIndex, layer: str, query: np.ndarray, parents: list[str]):
    """best_per_parent node by node: every descendant's cosine, first best in reading order."""
    best: dict[str, tuple[float, str]] = {}
    for parent in parents:
        nodes = [parent]
        depth = ["document", "component", "subcomponent"].index(layer)
        for _ in range(depth - index.graph.node(parent).layer):
            nodes = [child for node in nodes for child in index.graph.children(node)]
        for node, score in index.cache.similarities(layer, query, nodes).items():  # type: ignore[arg-type]
            if parent not in best or score > best[parent][0] + 1e-6:
                best[parent] = (score, node)
    return best


@pytest.mark.parametrize("layer", ["document", "component", "subcomponent"])
def test_best_per_parent_matches_scoring_every_descendant(mini_index: Path, layer: str) -> None:
    index = open_index(str(mini_index))
    query = index.embed_query("flag of Warsaw")
    docs = list(index.graph.nodes_at(0))
    components = [c for d in docs[:3] for c in index.graph.children(d)]
    depth = ["document", "component", "subcomponent"].index(layer)
    for parents in (docs, components, [*docs[:2], *components[-2:], "no-such-node"]):
        parents = [p for p in parents if p not in index.graph or index.graph.node(p).layer <= depth]
        fast = index.best_per_parent(layer, query, parents)  # type: ignore[arg-type]
        slow = _reference_best(index, layer, query, [p for p in parents if p in index.graph])
        assert fast.keys() == slow.keys()
        assert fast or not [p for p in parents if p in index.graph]
        for parent, (score, node) in slow.items():
            assert fast[parent][1] == node
            assert fast[parent][0] == pytest.approx(score, abs=1e-5)


@pytest.mark.parametrize("layer", ["document", "component", "subcomponent"])
def test_best_of_each_query_matches_one_query_at_a_time(mini_index: Path, layer: str) -> None:
    index = open_index(str(mini_index))
    texts = ["flag of Warsaw", "polonium discovered", "capital of Poland"]
    queries = np.stack([index.embed_query(t) for t in texts])
    docs = list(index.graph.nodes_at(0))
    components = [c for d in docs[:3] for c in index.graph.children(d)]
    for parents in (docs, [*components[::-1], "no-such-node"]):
        names, best = index.cache.best_per_parent_of_each(layer, queries, parents)  # type: ignore[arg-type]
        assert best.shape == (len(names), len(texts))
        for column, query in enumerate(queries):
            one = index.cache.best_per_parent(layer, query, parents)  # type: ignore[arg-type]
            assert set(names) == one.keys()
            got = [float(best[i, column]) for i in range(len(names))]
            assert got == pytest.approx([one[name][0] for name in names], abs=1e-6)
    assert index.cache.best_per_parent_of_each(layer, queries, ["no-such-node"])[0] == []


@pytest.mark.parametrize("layer", ["document", "component", "subcomponent"])
def test_top_documents_ranks_every_document_by_its_best_row(mini_index: Path, layer: str) -> None:
    index = open_index(str(mini_index))
    query = index.embed_query("flag of Warsaw")
    docs = list(index.graph.nodes_at(0))
    slow = _reference_best(index, layer, query, docs)
    expected = sorted(slow.items(), key=lambda item: (-item[1][0], item[0]))
    for k in (0, 1, 3, len(docs) + 5):
        top = index.cache.top_documents(layer, query, k)  # type: ignore[arg-type]
        assert top is not None
        assert [(doc, row) for doc, _, row in top] == [(d, row) for d, (_, row) in expected[:k]]
        assert [s for _, s, _ in top] == pytest.approx([s for _, (s, _) in expected[:k]], abs=1e-6)
    # a query orthogonal to every vector ties all documents: the first ids and first rows win
    tied = index.cache.top_documents(layer, np.zeros_like(query), 2)  # type: ignore[arg-type]
    first_rows = index.cache.best_per_parent(layer, np.zeros_like(query), docs)  # type: ignore[arg-type]
    assert tied == [(d, 0.0, first_rows[d][1]) for d in sorted(first_rows)[:2]]


def test_query_products_run_on_one_blas_thread_and_restore_the_pool() -> None:
    from threadpoolctl import threadpool_info

    from tools.vector_cache import one_blas_thread

    def blas_threads() -> list[int]:
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    with one_blas_thread():
        assert blas_threads() == [1] * len(before)
    assert blas_threads() == before
