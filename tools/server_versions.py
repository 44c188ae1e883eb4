"""Versions of an index whose vectors live on a Chroma server.

Local build products are versioned by folder (tools.index_versions), but a server's
collections do not move with a folder, so each version of a server index names its own:
`<name>-<version>_<layer>s` (the manifest's `collections`). A build first copies the live
version's vectors into its staging collections (an idempotent upsert, so a killed build
copies again), then writes only those; readers go on reading the live version's collections
until the build publishes, never a mix. When a version folder is removed, its collections
are dropped with it; the server holds at most two versions' vectors, as the folder does.
"""

from __future__ import annotations

import logging
from pathlib import Path

from tools.index import GET_BATCH, HNSW_CONFIGURATION, INDEX_LAYERS, ChromaLayers, IndexLayer
from tools.manifest import MANIFEST_FILE, Manifest

logger = logging.getLogger(__name__)


def start_server_version(
    previous: Manifest | None, manifest: Manifest, staging: Path, rebuild: bool
) -> None:
    """Give a build's manifest its own collections, holding a copy of the live version's.

    Embedded indices keep theirs in the version folder: nothing to do. A rebuild starts
    empty. A resumed build (its staging manifest already names these collections) copies
    nothing.
    """
    if not manifest.chroma_url:
        return
    manifest.collections = f"{manifest.name}-{staging.name}"
    if rebuild or previous is None or previous.prefix == manifest.prefix:
        return
    source = ChromaLayers.open(staging, manifest.chroma_url, previous.prefix)
    target = ChromaLayers(source.client, manifest.prefix)  # the same server, one connection
    copied = sum(_copy_layer(source, target, layer) for layer in INDEX_LAYERS)
    logger.info("copied %d vectors into %s_* for the build", copied, manifest.prefix)


def _copy_layer(source: ChromaLayers, target: ChromaLayers, layer: IndexLayer) -> int:
    """Upsert every vector and metadata of one layer into the same layer of `target`."""
    if not source.has(layer):
        return 0
    old = source.client.get_collection(source.name(layer), embedding_function=None)
    new = target.client.get_or_create_collection(
        target.name(layer),
        embedding_function=None,
        configuration=HNSW_CONFIGURATION,
        metadata=old.metadata,
    )
    total = old.count()
    for offset in range(0, total, GET_BATCH):
        page = old.get(include=["embeddings", "metadatas"], limit=GET_BATCH, offset=offset)
        new.upsert(ids=page["ids"], embeddings=page["embeddings"], metadatas=page["metadatas"])
    return int(total)


def drop_server_version(version: Path) -> None:
    """Drop the server collections of a version folder about to be removed (if it has any).

    A server that cannot be reached, or a manifest that cannot be read, leaves them behind
    with a warning: removing an old version never fails the build that just finished.
    """
    if not (version / MANIFEST_FILE).is_file():
        return
    try:
        manifest = Manifest.load(version)
        if not manifest.chroma_url or not manifest.collections:
            return
        layers = ChromaLayers.open(version, manifest.chroma_url, manifest.prefix)
        for layer in INDEX_LAYERS:
            layers.drop(layer)
    except Exception as error:
        logger.warning(
            "could not drop the Chroma server collections of %s (%s); if it had any, delete "
            "them by hand", version, error,
        )  # fmt: skip
