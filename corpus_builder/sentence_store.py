"""Sentence splits that outlive a build: an unchanged paragraph is not split again.

pysbd's rule-based splitter takes ~5 ms a paragraph: 46 s of the 68 s that rebuilding an
unchanged 7,000-page index took (18.5 s with this store). Every split is kept in
`sentences.json` next to the index, keyed by a digest of the paragraph's text and valid
for one splitter (pysbd's version and `SENTENCE_RULES`); a rebuild reuses the splits of
the paragraphs it still has and keeps only those, so the file never outgrows the corpus.
An unreadable or older store means splitting again, never a failed build.
"""

from __future__ import annotations

import hashlib
import json
import logging
from importlib.metadata import version
from pathlib import Path

from corpus_builder.splitters import (
    SENTENCE_RULES,
    RegionProposer,
    split_components,
    split_sentences,
)
from state.corpus import Document, Subcomponent
from tools.atomic_file import write_text_atomically

logger = logging.getLogger(__name__)

SENTENCES_FILE = "sentences.json"


def splitter_id() -> str:
    """Return what the stored splits depend on: pysbd's version and our rules."""
    return f"pysbd-{version('pysbd')}/rules-{SENTENCE_RULES}"


class SentenceStore:
    """Earlier builds' sentence splits, and the splits this build used."""

    def __init__(self, stored: dict[str, list[str]]) -> None:
        self._stored = stored
        self.used: dict[str, list[str]] = {}
        self.reused = 0

    @classmethod
    def load(cls, path: Path) -> SentenceStore:
        """Read the store at `path` (an empty one if absent, unreadable or of another splitter)."""
        if not path.is_file():
            return cls({})
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            splits = data["splits"] if data.get("splitter") == splitter_id() else {}
            return cls({key: s for key, s in splits.items() if _is_split(s)})
        except (OSError, ValueError, KeyError, AttributeError) as err:
            logger.warning("%s is unreadable (%s); splitting every paragraph again", path, err)
            return cls({})

    def split(self, text: str) -> tuple[str, ...]:
        """Return the sentences of a paragraph: stored, else split now."""
        key = hashlib.sha256(text.encode()).hexdigest()[:32]
        stored = self._stored.get(key)
        if stored is not None:
            self.reused += 1
            self.used[key] = stored
            return tuple(stored)
        sentences = split_sentences(text)
        self.used[key] = list(sentences)
        return sentences

    def save(self, path: Path) -> None:
        """Write the splits this build used (and only those), atomically."""
        data = {"splitter": splitter_id(), "splits": self.used}
        write_text_atomically(path, json.dumps(data, ensure_ascii=False))


def _is_split(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) for s in value)


def split_with_store(
    documents: list[Document], proposer: RegionProposer, path: Path
) -> dict[str, list[Subcomponent]]:
    """Split every component, reusing and then updating the stored sentence splits."""
    store = SentenceStore.load(path)
    subcomponents = split_components(documents, proposer, store.split)
    store.save(path)
    logger.info("sentences: %d paragraphs, %d split before", len(store.used), store.reused)
    return subcomponents
