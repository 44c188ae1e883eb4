"""A copy of each layer's vectors as numpy files, so opening an index skips Chroma's reads.

Exact scoring reads a layer's vectors whole (tools.vector_cache). Reading OTT-QA's 58k
vectors back from Chroma takes ~3.5 s however the reads are batched, a third of a cold
`fif ask`; loading the same matrices from .npy files takes a few hundredths of a second.
`fif build` writes the copy last, read back from Chroma itself, under a fresh token that
the manifest also records. A copy whose token is not the manifest's (an older build, a
build that stopped midway, an index built before the copy existed) is ignored, and the
vectors come from Chroma as before. Chroma stays the store that builds write and searches
query; this is only a faster way to read it whole.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

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
        meta = json.dumps({"token": token, "ids": ids}).encode()
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp.npz")
        try:
            np.savez(tmp, matrix=matrix, meta=np.frombuffer(meta, dtype=np.uint8))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return token


def read_mirror(
    index_dir: Path, layer: IndexLayer, token: str | None
) -> tuple[list[str], np.ndarray] | None:
    """Return a layer's ids and vectors from the copy of the build `token` names, else None."""
    path = index_dir / MIRROR_DIR / f"{layer}.npz"
    if token is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(data["meta"].tobytes())
            if meta.get("token") != token:
                return None
            matrix = np.asarray(data["matrix"], dtype=np.float32)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        logger.warning("%s is unreadable (%s); reading the vectors from Chroma", path, err)
        return None
    ids = [str(node_id) for node_id in meta["ids"]]
    if len(ids) != len(matrix):
        logger.warning("%s: %d ids, %d vectors; reading Chroma", path, len(ids), len(matrix))
        return None
    return ids, matrix
