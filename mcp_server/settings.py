"""What one `fif mcp` process serves: the index, and the settings `ask` runs with.

The index (layered graph, Chroma layers, embedding model) opens once per process, on
the first tool call or at startup (`warm`, which `--preload` calls), behind a lock so
concurrent first calls do not open it twice; tools.corpus_index keeps the one instance.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from state.settings import RunSettings

if TYPE_CHECKING:
    from graph_agent.registry import SystemSpec
    from tools.corpus_index import CorpusIndex

_OPENING = threading.Lock()


@dataclass(frozen=True)
class ServerSettings:
    """The index a server answers from and the `ask` settings (FIF_* env fills the rest)."""

    index_dir: Path
    chroma_url: str | None = None
    ask_overrides: Mapping[str, Any] = field(default_factory=dict)
    """RunSettings fields for `ask` runs, as `fif ask` options set them: backend, chat_model,
    base_url, local_model_path, max_steps, …; None values are left to FIF_* and defaults."""

    def index(self) -> CorpusIndex:
        """Return the shared index, opening it on first use and again after a build.

        Raises:
            IndexNotFoundError: If no complete index is at `index_dir`.
        """
        from tools.corpus_index import open_index, reopen_index
        from tools.index_pins import rebuilt_since_opened

        where = (str(self.index_dir), self.chroma_url)
        with _OPENING:
            index = open_index(*where)
            return reopen_index(*where) if rebuilt_since_opened(index) else index

    def warm(self) -> None:
        """Open the index and its embedding model, and load the BM25 layers if it has them.

        Raises:
            IndexNotFoundError: If no complete index is at `index_dir`.
        """
        index = self.index()
        if index.manifest.sparse:  # hybrid, the default search mode, reads them
            index.sparse()

    def ask_context(self, system: SystemSpec, k: int, answer: bool) -> RunSettings:
        """Return the RunSettings a system runs with: env, the server's options, then the call's.

        Raises:
            ValidationError: If a setting (from FIF_* or the server's options) is malformed.
        """
        overrides = {
            **self.ask_overrides,
            "index_dir": str(self.index_dir),
            "chroma_url": self.chroma_url,
            "top_k": k,
            "answer": answer,
        }
        return system.context(overrides)
