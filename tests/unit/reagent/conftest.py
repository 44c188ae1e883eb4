"""The mini bundle with hand-made contradicting evidence, indexed once with the hash embedder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from reagent_bundle import CONTRADICTING_DOCUMENTS

from corpus_builder.build import BuildOptions, build
from state.reagent_state import ReAgentContext

MINI_BUNDLE = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


@pytest.fixture(scope="session")
def reagent_index_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Build the mini bundle plus the contradicting page once per session (hash:64)."""
    root = tmp_path_factory.mktemp("reagent")
    bundle = Path(shutil.copytree(MINI_BUNDLE, root / "bundle"))
    with (bundle / "corpus.jsonl").open("a", encoding="utf-8") as handle:
        for document in CONTRADICTING_DOCUMENTS:
            handle.write(json.dumps(document) + "\n")
    index_dir = root / "index"
    build(bundle, index_dir, BuildOptions(text_embedder="hash:64", show_progress=False))
    return str(index_dir)


@pytest.fixture
def context(reagent_index_dir: str) -> ReAgentContext:
    """An offline ReAgent context on the test index."""
    return ReAgentContext(index_dir=reagent_index_dir, top_k=5, evidence_m=5)
