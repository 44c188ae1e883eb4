"""The two-filing corpus indexed once with the hash embedder, and an offline context on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from extraction_bundle import DOCUMENTS

from corpus_builder.build import BuildOptions, build
from state.extraction_state import ExtractionContext


@pytest.fixture(scope="session")
def filings_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Build the filings once per session (hash:64)."""
    root = tmp_path_factory.mktemp("extraction")
    bundle = root / "bundle"
    bundle.mkdir()
    with (bundle / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for document in DOCUMENTS:
            handle.write(json.dumps(document) + "\n")
    index_dir = root / "index"
    build(bundle, index_dir, BuildOptions(text_embedder="hash:64", show_progress=False))
    return str(index_dir)


@pytest.fixture
def offline_context(filings_index: str) -> ExtractionContext:
    """An offline context on the filings: at most 3 iterations, one document."""
    return ExtractionContext(
        index_dir=filings_index, top_k=6, max_iterations=3, max_documents=1, answer=True
    )


@pytest.fixture
def index_path(filings_index: str) -> Path:
    """The filings index folder."""
    return Path(filings_index)
