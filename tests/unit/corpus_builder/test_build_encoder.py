"""An index keeps the text encoder that built it: a build naming only the default keeps it."""

from __future__ import annotations

from pathlib import Path

from tools.corpus_index import CorpusIndex
from tools.embedders import DEFAULT_TEXT_EMBEDDER


def test_a_build_naming_the_default_keeps_the_encoder_that_built_the_index(
    mini_bundle: Path, tmp_path: Path, hash_build
) -> None:
    hash_build(mini_bundle, tmp_path / "index")
    manifest = hash_build(mini_bundle, tmp_path / "index", text_embedder=DEFAULT_TEXT_EMBEDDER)
    assert (manifest.text_embedder.spec, manifest.text_embedder.dim) == ("hash:64", 64)
    assert manifest.embedding["component_unchanged"] == 19  # nothing re-embedded
    assert CorpusIndex.open(tmp_path / "index").text_embedder.model_id == "hash:64"


def test_a_rebuild_takes_the_named_encoder(mini_bundle: Path, tmp_path: Path, hash_build) -> None:
    hash_build(mini_bundle, tmp_path / "index")
    manifest = hash_build(mini_bundle, tmp_path / "index", text_embedder="hash:32", rebuild=True)
    assert manifest.text_embedder.spec == "hash:32"
