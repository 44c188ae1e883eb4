"""The image layer of a build: image components' and PDF pages' vectors, and their calibration.

Only with an image embedder (`clip:<folder>`): bundle and folder images, PDF regions and
text-less pages (rendered once into the index's `page-images/`) get image vectors, and the
image scores are calibrated against the text ones. Without one, images are searched
through their captions' text vectors.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from corpus_builder.embed_stage import IncrementalIndexer
from corpus_builder.layer_items import image_embed, image_items
from corpus_builder.page_images import PAGE_IMAGES, render_documents
from corpus_builder.pdf_image_items import pdf_image_items
from state.corpus import Document, IngestReport, Subcomponent
from tools.calibration import estimate_calibration
from tools.embedders import Embedder, ImageEmbedder
from tools.errors import ConfigError
from tools.layered_graph import LayeredGraph
from tools.manifest import Manifest


def sync_image_layer(
    indexer: IncrementalIndexer,
    build: tuple[Path, Manifest, IngestReport],
    parsed: tuple[Sequence[Document], dict[str, list[Subcomponent]], LayeredGraph],
    embedders: tuple[Embedder, Embedder | None],
) -> None:
    """Embed the images (with an image embedder) and record how images are indexed.

    Args:
        indexer: The build's layer writer.
        build: The index folder (its `page-images/` cache), the manifest and the report.
        parsed: The documents, their subcomponents and the layered graph.
        embedders: The text and the image embedder (None: caption text only).
    """
    (index_dir, manifest, report), (documents, subcomponents, graph) = build, parsed
    text, image = embedders
    has_images = any(c.image_path for d in documents for c in d.components)
    if image is None:
        manifest.images_indexed_via = "caption-text" if has_images else "none"
        return
    if not isinstance(image, ImageEmbedder):
        raise ConfigError(f"{image.model_id} cannot embed images; use clip:<local folder>")
    stats = indexer.stats
    started = time.perf_counter()
    pages = render_documents(list(documents), index_dir / PAGE_IMAGES, report)
    manifest.options.update(page_images=len(pages.pages), pages_rendered=pages.rendered)
    items = image_items(list(documents), subcomponents) + pdf_image_items(
        list(documents), pages.pages
    )
    stats.index_seconds += time.perf_counter() - started
    indexer.sync("image", items, image, embed=image_embed(image))
    has_images = has_images or bool(pages.pages)
    manifest.images_indexed_via = "image-embedder" if has_images else "none"
    started = time.perf_counter()
    manifest.image_calibration = estimate_calibration(
        graph, indexer.layers, text, image, [item.node_id for item in items]
    )
    stats.index_seconds += time.perf_counter() - started
