"""Chroma layer indices: one collection per layer, our embeddings only, embedded or over HTTP.

Collections are created with `embedding_function=None` so Chroma never embeds (its default
function downloads a model). chromadb itself is imported by `tools.chroma_connect` alone, when
a layer is first used.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from state.corpus import LAYERS
from tools.chroma_connect import chroma_connector
from tools.errors import IndexMismatchError, IndexNotFoundError

if TYPE_CHECKING:
    from tools.layered_graph import LayeredGraph

logger = logging.getLogger(__name__)

IndexLayer = Literal["document", "component", "subcomponent", "image", "triplet"]
INDEX_LAYERS: tuple[IndexLayer, ...] = ("document", "component", "subcomponent", "image", "triplet")
"""`triplet` is the optional triplet text KB (`fif build --triplets`, corpus_builder.triplet_kb)."""
WRITE_BATCH = 2000
HNSW_CONFIGURATION: Any = {"hnsw": {"space": "cosine", "ef_construction": 128, "ef_search": 128}}
"""How every layer collection is created (cosine distance, the search breadth)."""
GET_BATCH = 10000
METADATA_KEYS = ("doc_id", "component_id", "type")
"""What every stored vector carries besides its content hash; `type` is the node's kind
(document, paragraph, table, image, sentence, row, region)."""
PAGE_KEYS = ("page_first", "page_last")
"""What a PDF component's or subcomponent's vector carries too: its zero-indexed page span."""
NodeFields = Callable[[str], tuple[str, str, str] | None]
"""A node's (doc_id, component_id, type) as its metadata holds them; None: not known."""


@dataclass(frozen=True)
class Hit:
    """One vector match: the node, its document and component, and cosine similarity.

    `doc_id`, `component_id` and `kind` come from the vector's metadata keys `doc_id`,
    `component_id` and `type` (see METADATA_KEYS).
    """

    node_id: str
    doc_id: str
    component_id: str
    kind: str
    score: float


def collection_prefix(name: str) -> str:
    """Turn an index name into a valid Chroma collection-name prefix."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-_") or "fif"
    return cleaned[:40] if cleaned[0].isalnum() else f"fif{cleaned}"[:40]


class ChromaLayers:
    """The Chroma collections of one FiF index."""

    def __init__(self, client: Any, prefix: str, connect: Callable[[], Any] | None = None) -> None:
        self._client = client
        self._connect = connect
        """Makes the client on first use when `client` is None (see `open`)."""
        self._connecting = threading.Lock()
        self.prefix = prefix
        self.nodes: NodeFields | None = None
        """Where hits of the graph's layers take their fields from (`graph_fields`), so a
        query asks Chroma for ids and distances only: reading the metadata was most of a
        query's time, embedded or over HTTP. None: from Chroma's metadata."""
        self._collections: dict[str, Any] = {}
        self._counts: dict[str, int] = {}
        """Vectors per layer, for clamping queries: Chroma's count() took 2.5 ms, 40% of a
        dense search. Our writes forget it; another process's writes show on reopening."""

    @classmethod
    def open(cls, index_dir: Path, chroma_url: str | None, prefix: str) -> ChromaLayers:
        """Return the layers of an embedded store under index_dir, or of a server at chroma_url.

        Chroma is imported and connected on first use (`tools.chroma_connect`).
        """
        return cls(None, prefix, chroma_connector(index_dir, chroma_url))

    @property
    def client(self) -> Any:
        """The Chroma client, connected on first use."""
        with self._connecting:
            if self._client is None and self._connect is not None:
                self._client = self._connect()
            return self._client

    def remember_counts(self, counts: Mapping[IndexLayer, int]) -> None:
        """Take the layers' vector counts as known (from a current copy of their vectors)."""
        for layer, count in counts.items():
            self._counts[layer] = count

    def name(self, layer: IndexLayer) -> str:
        """Return the collection name of a layer."""
        return f"{self.prefix}_{layer}s"

    def collection(self, layer: IndexLayer, embedder_id: str | None = None, dim: int = 0) -> Any:
        """Return a layer's collection, creating it (for the builder) when embedder_id is given.

        Every other method opens the collection through this one, so none depends on it
        having been called first.

        Raises:
            IndexNotFoundError: If the layer has no collection and embedder_id is None.
            IndexMismatchError: If the collection holds another embedder's vectors.
        """
        if layer in self._collections:
            return self._collections[layer]
        if embedder_id is None:
            if not self.has(layer):
                raise IndexNotFoundError(
                    f"the index has no {layer} vectors (collection {self.name(layer)}); "
                    "build it with fif build, or check --index and --chroma-url"
                )
            collection = self.client.get_collection(self.name(layer), embedding_function=None)
        else:
            collection = self.client.get_or_create_collection(
                self.name(layer),
                embedding_function=None,
                configuration=HNSW_CONFIGURATION,
                metadata={"embedder": embedder_id, "dim": dim},
            )
            stored = collection.metadata or {}
            if stored.get("embedder") != embedder_id or stored.get("dim") != dim:
                raise IndexMismatchError(
                    f"collection {self.name(layer)} holds {stored.get('embedder')} vectors "
                    f"(dim {stored.get('dim')}), not {embedder_id} (dim {dim}); rebuild with "
                    "--rebuild or use another --index"
                )
        self._collections[layer] = collection
        return collection

    def has(self, layer: IndexLayer) -> bool:
        """Tell whether a layer's collection exists."""
        return self.name(layer) in {c.name for c in self.client.list_collections()}

    def drop(self, layer: IndexLayer) -> None:
        """Delete a layer's collection if it exists."""
        self._collections.pop(layer, None)
        self._counts.pop(layer, None)
        if self.has(layer):
            self.client.delete_collection(self.name(layer))

    def stored_metadata(self, layer: IndexLayer) -> dict[str, dict[str, Any]]:
        """Return {node id: metadata} of everything already stored in a layer."""
        collection = self.collection(layer)
        result: dict[str, dict[str, Any]] = {}
        total = collection.count()
        for offset in range(0, total, GET_BATCH):
            page = collection.get(include=["metadatas"], limit=GET_BATCH, offset=offset)
            for node_id, meta in zip(page["ids"], page["metadatas"], strict=True):
                result[node_id] = dict(meta or {})
        return result

    def stored_hashes(self, layer: IndexLayer) -> dict[str, str]:
        """Return {node id: content hash} of everything already stored in a layer."""
        return {
            node_id: str(meta.get("hash", ""))
            for node_id, meta in self.stored_metadata(layer).items()
        }

    def upsert(
        self,
        layer: IndexLayer,
        ids: Sequence[str],
        vectors: np.ndarray,
        metadatas: Sequence[dict[str, Any]],
    ) -> None:
        """Insert or replace vectors by id (idempotent, so a resumed build adds no duplicates).

        Chroma merges the metadata of an existing id; set a key to None to remove it.
        """
        collection = self.collection(layer)
        self._counts.pop(layer, None)
        for start in range(0, len(ids), WRITE_BATCH):
            stop = start + WRITE_BATCH
            collection.upsert(
                ids=list(ids[start:stop]),
                embeddings=vectors[start:stop],
                metadatas=list(metadatas[start:stop]),
            )

    def update_metadata(
        self, layer: IndexLayer, ids: Sequence[str], metadatas: Sequence[dict[str, Any]]
    ) -> None:
        """Change the metadata of stored vectors (a key set to None is removed)."""
        collection = self.collection(layer)
        for start in range(0, len(ids), WRITE_BATCH):
            stop = start + WRITE_BATCH
            collection.update(ids=list(ids[start:stop]), metadatas=list(metadatas[start:stop]))

    def delete(self, layer: IndexLayer, ids: Sequence[str]) -> None:
        """Remove vectors by id."""
        self._counts.pop(layer, None)
        for start in range(0, len(ids), WRITE_BATCH):
            self.collection(layer).delete(ids=list(ids[start : start + WRITE_BATCH]))

    def count(self, layer: IndexLayer) -> int:
        """Return the number of vectors in a layer (remembered until this object writes)."""
        if layer not in self._counts:
            self._counts[layer] = int(self.collection(layer).count())
        return self._counts[layer]

    def query(
        self,
        layer: IndexLayer,
        vector: np.ndarray,
        n: int,
        doc_ids: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Return up to n nearest nodes of a layer, optionally only inside some documents.

        `kinds` keeps only vectors of those node kinds (the image layer holds both images
        and regions).
        """
        collection = self.collection(layer)
        clauses: list[dict[str, Any]] = []
        if doc_ids is not None:
            if not doc_ids:
                return []
            clauses.append({"doc_id": {"$in": list(doc_ids)}})
        if kinds is not None:
            clauses.append({"type": {"$in": list(kinds)}})
        where = clauses[0] if len(clauses) == 1 else {"$and": clauses} if clauses else None
        n = min(n, self.count(layer))
        if n <= 0:
            return []
        known = self.nodes if layer in LAYERS else None
        include = ["distances"] if known else ["metadatas", "distances"]
        result = collection.query(
            query_embeddings=[vector], n_results=n, where=where, include=include
        )
        ids = result["ids"][0]
        fields = self._fields(layer, ids, known) if known else map(_fields, result["metadatas"][0])
        return [
            Hit(node_id, *found, 1.0 - float(distance))
            for node_id, found, distance in zip(ids, fields, result["distances"][0], strict=True)
        ]

    def _fields(
        self, layer: IndexLayer, ids: list[str], known: NodeFields
    ) -> list[tuple[str, str, str]]:
        """Return each node's fields from `known`, reading from Chroma those it lacks."""
        found = {node_id: known(node_id) for node_id in ids}
        missing = [node_id for node_id, fields in found.items() if fields is None]
        if missing:
            page = self.collection(layer).get(ids=missing, include=["metadatas"])
            found.update(zip(page["ids"], map(_fields, page["metadatas"]), strict=True))
        return [found[node_id] or ("", "", "") for node_id in ids]

    def vectors(self, layer: IndexLayer, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Return the stored vectors of some nodes (missing ids are absent from the result)."""
        if not ids:
            return {}
        page = self.collection(layer).get(ids=list(ids), include=["embeddings"])
        return {
            node_id: np.asarray(vec, dtype=np.float32)
            for node_id, vec in zip(page["ids"], page["embeddings"], strict=True)
        }


def _fields(meta: Any) -> tuple[str, str, str]:
    meta = meta or {}
    return str(meta.get("doc_id", "")), str(meta.get("component_id", "")), str(meta.get("type", ""))


def graph_fields(graph: LayeredGraph) -> NodeFields:
    """Read hits' fields from the index's graph, which holds the same as the metadata."""

    def fields(node_id: str) -> tuple[str, str, str] | None:
        if node_id not in graph:
            return None
        view = graph.node(node_id)
        if view.layer == 0:
            return view.doc_id, "", view.kind
        component = node_id if view.layer == 1 else str(view.attrs.get("component_id", ""))
        return view.doc_id, component, view.kind

    return fields
