"""MMAPG tests run on the mini bundle indexed with the hash embedder (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from state.mmapg_state import MMAPGContext
from tools.corpus_index import CorpusIndex, open_index


@pytest.fixture
def mmapg_context(mini_index: Path) -> MMAPGContext:
    """An offline MMAPG context on the mini index."""
    return MMAPGContext(index_dir=str(mini_index), top_k=6)


@pytest.fixture
def index(mini_index: Path) -> CorpusIndex:
    """The opened mini index."""
    return open_index(str(mini_index))
