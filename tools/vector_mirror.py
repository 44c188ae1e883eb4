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
from collections.abc import Callable
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


def write_mirror(index_dir: Path, layers: ChromaLayers) -> str:
    """Copy every layer's vectors out of Chroma; return the token the manifest must hold."""
    token = uuid.uuid4().hex
    folder = index_dir / MIRROR_DIR
    folder.mkdir(exist_ok=True)
    for layer in INDEX_LAYERS:
        path = folder / f"{layer}.npz"
        if not layers.has(layer):
            path.unlink(missing_ok=True)
            continue
        ids, matrix = chroma_vectors(layers, layer)
        write_npz_atomically(path, {"token": token, "ids": ids}, matrix=matrix)
    return token


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
