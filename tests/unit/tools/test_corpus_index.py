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
