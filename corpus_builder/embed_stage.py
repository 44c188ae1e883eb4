"""Embed and index incrementally: only new or changed nodes are embedded, each text once.

Every stored vector carries a hash of (embedder, content). A re-run embeds only nodes
whose hash is missing or different, copies vectors of identical texts already stored
(in any layer) instead of re-embedding them, and deletes nodes gone from the corpus.
Vectors are written chunk by chunk with idempotent upserts, so a build killed midway
resumes with no duplicates and nothing lost.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from corpus_builder.embed_content import EmbedContent, content_key, standalone_text
from tools.embedders import Embedder
from tools.index import ChromaLayers, IndexLayer

logger = logging.getLogger(__name__)

CHUNK = 1024


@dataclass(frozen=True)
class EmbedItem:
    """One node to index: its id, the text (or image key) to embed and its metadata."""

    node_id: str
    content: EmbedContent
    metadata: dict[str, Any]


@dataclass
class EmbedStats:
    """What a sync did, and where its time went."""

    embed_seconds: float = 0.0
    index_seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, key: str, value: int) -> None:
        """Accumulate a count."""
        self.counts[key] = self.counts.get(key, 0) + value


def content_hash(model_id: str, content: EmbedContent) -> str:
    """Hash what determines a vector: the embedder and the embedded content."""
    return hashlib.sha1(f"{model_id}\x00{content_key(content)}".encode()).hexdigest()


def metadata_update(wanted: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """Return the metadata to write over `stored` so that the vector ends up with `wanted`.

    Chroma merges metadata on upsert and update, so keys no longer wanted (such as the
    `kind` key of indices built before it became `type`) are removed by setting them to None.
    """
    gone = {key: None for key in stored if key not in wanted and key != "hash"}
    return {**wanted, **gone}


def _changes(
    items: Sequence[EmbedItem], stored: dict[str, dict[str, Any]], model_id: str
) -> tuple[list[EmbedItem], list[EmbedItem]]:
    """Split items into those to embed (new or changed content) and those to relabel."""
    todo, relabel = [], []
    for item in items:
        previous = stored.get(item.node_id)
        if previous is None or previous.get("hash") != content_hash(model_id, item.content):
            todo.append(item)
        elif {key: value for key, value in previous.items() if key != "hash"} != item.metadata:
            relabel.append(item)
    return todo, relabel


class IncrementalIndexer:
    """Bring each layer collection in line with the current corpus, embedding only what changed."""

    def __init__(self, layers: ChromaLayers, stats: EmbedStats, show_progress: bool) -> None:
        self.layers = layers
        self.stats = stats
        self.show_progress = show_progress
        self._known: dict[str, tuple[IndexLayer, str]] = {}
        """content hash -> (layer, node id) of a vector already stored."""
        self.synced: dict[IndexLayer, list[str]] = {}
        """The node ids each synced layer holds now."""
        self.written: dict[IndexLayer, set[str]] = {}
        """The node ids whose vectors this build wrote, by layer."""

    def sync(
        self,
        layer: IndexLayer,
        items: Sequence[EmbedItem],
        embedder: Embedder,
        embed: Callable[[Sequence[EmbedContent]], np.ndarray] | None = None,
    ) -> None:
        """Make a layer hold exactly `items`, embedding new contents with `embed`.

        Without `embed`, the embedder embeds each content's text (see `standalone_text`).
        """
        embed = embed or (lambda contents: embedder.embed([standalone_text(c) for c in contents]))
        started = time.perf_counter()
        self.layers.collection(layer, embedder.model_id, embedder.dim)
        stored = self.layers.stored_metadata(layer)
        for node_id, meta in stored.items():
            self._known.setdefault(str(meta.get("hash", "")), (layer, node_id))
        wanted = {item.node_id for item in items}
        self.synced[layer] = [item.node_id for item in items]
        stale = [node_id for node_id in stored if node_id not in wanted]
        if stale:
            self.layers.delete(layer, stale)
        todo, relabel = _changes(items, stored, embedder.model_id)
        if relabel:
            self._relabel(layer, relabel, stored)
        self.stats.index_seconds += time.perf_counter() - started
        self.stats.add(f"{layer}_unchanged", len(items) - len(todo))
        self.stats.add(f"{layer}_deleted", len(stale))
        if todo:
            self._write(layer, todo, embedder.model_id, embed, stored)

    def _relabel(
        self, layer: IndexLayer, items: Sequence[EmbedItem], stored: dict[str, dict[str, Any]]
    ) -> None:
        """Bring the metadata of unchanged vectors up to date (e.g. renamed keys), no embedding."""
        metadatas = [metadata_update(item.metadata, stored[item.node_id]) for item in items]
        self.layers.update_metadata(layer, [item.node_id for item in items], metadatas)
        self.stats.add(f"{layer}_relabelled", len(items))
        logger.info("%s: updated the metadata of %d unchanged vectors", layer, len(items))

    def _write(
        self,
        layer: IndexLayer,
        todo: Sequence[EmbedItem],
        model_id: str,
        embed: Callable[[Sequence[EmbedContent]], np.ndarray],
        stored: dict[str, dict[str, Any]],
    ) -> None:
        hashes = [content_hash(model_id, item.content) for item in todo]
        unique: dict[str, EmbedContent] = {}
        for item, digest in zip(todo, hashes, strict=True):
            unique.setdefault(digest, item.content)
        order = list(unique)
        bar = tqdm(
            total=len(order),
            desc=f"embed {layer}s",
            unit="text",
            disable=not self.show_progress,
            leave=False,
        )
        for start in range(0, len(order), CHUNK):
            chunk = order[start : start + CHUNK]
            vectors = self._vectors_for(chunk, unique, embed)
            chunk_set = set(chunk)
            picked = [
                (item, digest)
                for item, digest in zip(todo, hashes, strict=True)
                if digest in chunk_set
            ]
            self._upsert(layer, picked, vectors, stored)
            bar.update(len(chunk))
        bar.close()

    def _vectors_for(
        self,
        chunk: list[str],
        unique: dict[str, EmbedContent],
        embed: Callable[[Sequence[EmbedContent]], np.ndarray],
    ) -> dict[str, np.ndarray]:
        vectors: dict[str, np.ndarray] = {}
        reuse: dict[IndexLayer, dict[str, str]] = {}
        for digest in chunk:
            if digest in self._known:
                layer, node_id = self._known[digest]
                reuse.setdefault(layer, {})[node_id] = digest
        started = time.perf_counter()
        for layer, by_node in reuse.items():
            for node_id, vector in self.layers.vectors(layer, list(by_node)).items():
                vectors[by_node[node_id]] = vector
        self.stats.index_seconds += time.perf_counter() - started
        missing = [digest for digest in chunk if digest not in vectors]
        self.stats.add("texts_reused", len(chunk) - len(missing))
        if missing:
            started = time.perf_counter()
            fresh = embed([unique[digest] for digest in missing])
            self.stats.embed_seconds += time.perf_counter() - started
            self.stats.add("texts_embedded", len(missing))
            vectors.update(zip(missing, fresh, strict=True))
        return vectors

    def _upsert(
        self,
        layer: IndexLayer,
        picked: list[tuple[EmbedItem, str]],
        vectors: dict[str, np.ndarray],
        stored: dict[str, dict[str, Any]],
    ) -> None:
        started = time.perf_counter()
        ids = [item.node_id for item, _ in picked]
        matrix = np.stack([vectors[digest] for _, digest in picked])
        metadatas = [
            metadata_update({**item.metadata, "hash": digest}, stored.get(item.node_id, {}))
            for item, digest in picked
        ]
        self.layers.upsert(layer, ids, matrix, metadatas)
        self.written.setdefault(layer, set()).update(ids)
        for item, digest in picked:
            self._known.setdefault(digest, (layer, item.node_id))
        self.stats.index_seconds += time.perf_counter() - started
        self.stats.add(f"{layer}_written", len(ids))
