"""A copy of each layer's vectors as numpy files, so opening an index skips Chroma's reads.

Exact scoring reads a layer's vectors whole (tools.vector_cache). Reading a 58k-vector
index back from Chroma takes ~3.5 s however the reads are batched, a third of a cold
`fif ask`; loading the same matrices from .npy files takes a few hundredths of a second.
`fif build` writes the copy last, read back from Chroma itself, under a fresh token that
the manifest also records. A copy whose token is not the manifest's (an older build, a
build that stopped midway, an index built before the copy existed) is ignored, and the
vectors come from Chroma as before. Chroma stays the store that builds write and searches
query; this is only a faster way to read it whole.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from tools.atomic_file import read_npz, write_npz_atomically
from tools.index import GET_BATCH, INDEX_LAYERS, ChromaLayers, IndexLayer

logger = logging.getLogger(__name__)

MIRROR_DIR = "vectors"


def chroma_vectors(layers: ChromaLayers, layer: IndexLayer) -> tuple[list[str], np.ndarray]:
    """Return a layer's ids and vectors as Chroma stores them, in its order."""
    collection = layers.collection(layer)
    ids: list[str] = []
    chunks: list[np.ndarray] = []
    for offset in range(0, collection.count(), GET_BATCH):
        page = collection.get(include=["embeddings"], limit=GET_BATCH, offset=offset)
        ids.extend(page["ids"])
        chunks.append(np.asarray(page["embeddings"], dtype=np.float32))
    matrix = np.concatenate(chunks) if chunks else np.zeros((0, 1), dtype=np.float32)
    return ids, matrix


def layer_reader(
    index_dir: Path, layers: ChromaLayers, token: str | None
) -> Callable[[IndexLayer], tuple[list[str], np.ndarray]]:
    """Return how to read a layer whole: the build's copy if current, else Chroma."""

    def read(layer: IndexLayer) -> tuple[list[str], np.ndarray]:
        return read_mirror(index_dir, layer, token) or chroma_vectors(layers, layer)

    return read


def update_mirror(
    index_dir: Path,
    layers: ChromaLayers,
    synced: Mapping[IndexLayer, Sequence[str]],
    previous: str | None,
    written: Mapping[IndexLayer, set[str]] | None = None,
    order: Mapping[str, int] | None = None,
) -> str:
    """Write the copy from the previous one plus what this build changed; return its token.

    `synced` gives the ids each layer synced by this build holds and `written` the ids
    whose vectors it wrote; their other vectors are unchanged since the copy of the build
    `previous` names, so only the written ones are read back from Chroma. A layer not
    synced, or without a valid previous copy, is read whole from Chroma. With the graph's
    `order` (`LayeredGraph.reading_order`), rows are written in it, as searches keep them.
    """
    token = uuid.uuid4().hex
    folder = index_dir / MIRROR_DIR
    folder.mkdir(exist_ok=True)
    for layer in INDEX_LAYERS:
        path = folder / f"{layer}.npz"
        if not layers.has(layer):
            path.unlink(missing_ok=True)
            continue
        old = read_mirror(index_dir, layer, previous) if layer in synced else None
        if old is None:
            ids, matrix = chroma_vectors(layers, layer)
        else:
            ids, matrix = _patched(layers, layer, old, synced[layer], (written or {}).get(layer))
        if order is not None:
            ids, matrix = in_reading_order(ids, matrix, order)
        write_npz_atomically(path, {"token": token, "ids": ids}, matrix=matrix)
    return token


def in_reading_order(
    ids: Sequence[str], matrix: np.ndarray, order: Mapping[str, int]
) -> tuple[list[str], np.ndarray]:
    """Sort rows by reading order (ids it lacks last, ties as given); sorted rows stay put.

    A 150k-row layer's copy took 0.5 s to permute on every load: the build writes it in
    order, so loading it costs one pass over the ids.
    """
    unknown = len(order)
    ranks = np.fromiter((order.get(node, unknown) for node in ids), np.int64, len(ids))
    if bool(np.all(ranks[1:] >= ranks[:-1])):
        return list(ids), matrix
    perm = np.argsort(ranks, kind="stable")
    return [ids[row] for row in perm], matrix[perm]


def _patched(
    layers: ChromaLayers,
    layer: IndexLayer,
    old: tuple[list[str], np.ndarray],
    ids: Sequence[str],
    written: set[str] | None,
) -> tuple[list[str], np.ndarray]:
    """Return a layer's (ids, vectors): the old copy's rows, Chroma's for written ids."""
    row = {node_id: n for n, node_id in enumerate(old[0])}
    fresh_ids = [node_id for node_id in ids if node_id in (written or set()) or node_id not in row]
    fresh = layers.vectors(layer, fresh_ids)
    if len(fresh) != len(fresh_ids):
        return chroma_vectors(layers, layer)  # not all stored: trust Chroma whole
    if not ids:
        return [], np.zeros((0, old[1].shape[1] if old[1].ndim == 2 else 1), dtype=np.float32)
    matrix = np.stack([fresh[n] if n in fresh else old[1][row[n]] for n in ids])
    return list(ids), matrix.astype(np.float32, copy=False)


def read_mirror(
    index_dir: Path, layer: IndexLayer, token: str | None
) -> tuple[list[str], np.ndarray] | None:
    """Return a layer's ids and vectors from the copy of the build `token` names, else None."""
    path = index_dir / MIRROR_DIR / f"{layer}.npz"
    if token is None or not path.is_file():
        return None
    found = read_npz(path, lambda meta: meta.get("token") == token, "reading Chroma instead")
    if found is None:
        return None
    meta, arrays = found
    ids = [str(node) for node in meta["ids"]]
    matrix = arrays["matrix"].astype(np.float32, copy=False)
    if len(ids) != len(matrix):
        logger.warning("%s: %d ids, %d vectors; reading Chroma", path, len(ids), len(matrix))
        return None
    return ids, matrix


def mirror_counts(index_dir: Path, token: str | None) -> dict[IndexLayer, int]:
    """Return the vector count of each layer the copy of the build `token` names holds.

    Only each archive's small header is read (the matrices load on first search); a layer
    without a current copy is absent, and its count is Chroma's to give.
    """
    counts: dict[IndexLayer, int] = {}
    if token is None:
        return counts
    for layer in INDEX_LAYERS:
        path = index_dir / MIRROR_DIR / f"{layer}.npz"
        if path.is_file():
            current = "its count comes from Chroma"
            found = read_npz(path, lambda meta: meta.get("token") == token, current, arrays=False)
            if found is not None:
                counts[layer] = len(found[0]["ids"])
    return counts
