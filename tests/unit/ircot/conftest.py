"""IRCoT test fixtures: an offline context on the mini bundle's hash-embedder index."""

from __future__ import annotations

from pathlib import Path

import pytest

from state.ircot_state import IrcotContext


@pytest.fixture
def offline_context(mini_index: Path) -> IrcotContext:
    """An offline IRCoT context on the mini index: K = 3, at most 3 reasoning steps."""
    return IrcotContext(index_dir=str(mini_index), top_k=6, retrieve_k=3, max_chain_steps=3)
