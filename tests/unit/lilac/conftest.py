"""A tiny linked bundle indexed with the hash embedder, shared by the LILaC tests."""

from __future__ import annotations

import json

import pytest
from lilac_bundle import DOCUMENTS

from corpus_builder.build import BuildOptions, build
from state.lilac_state import LilacContext


@pytest.fixture(scope="session")
def lilac_index_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Build the tiny bundle once per session with the hash:64 embedder."""
    root = tmp_path_factory.mktemp("lilac")
    bundle = root / "bundle"
    bundle.mkdir()
    with (bundle / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for document in DOCUMENTS:
            handle.write(json.dumps(document) + "\n")
    index_dir = root / "index"
    build(bundle, index_dir, BuildOptions(text_embedder="hash:64", show_progress=False))
    return str(index_dir)


@pytest.fixture
def offline_context(lilac_index_dir: str) -> LilacContext:
    """An offline LILaC context on the tiny index."""
    return LilacContext(index_dir=lilac_index_dir, top_k=4, beam_width=10)
