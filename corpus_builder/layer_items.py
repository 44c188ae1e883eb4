"""What each layer index holds: node ids, the text (or image key) to embed, and metadata.

An image item's content is `digest|path|box`, so a changed image file or region box is
re-embedded. The metadata keys are those of tools.index.METADATA_KEYS.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from corpus_builder.embed_stage import EmbedItem
from corpus_builder.texts import component_text, subcomponent_text
from state.corpus import Document, Subcomponent
from tools.embedders import ImageEmbedder


def metadata(doc_id: str, component_id: str, kind: str) -> dict[str, str]:
    """Return a vector's metadata under the index's keys (tools.index.METADATA_KEYS)."""
    return {"doc_id": doc_id, "component_id": component_id, "type": kind}


def embed_items(
    documents: list[Document],
    subcomponents: dict[str, list[Subcomponent]],
    summaries: dict[str, str],
) -> tuple[list[EmbedItem], list[EmbedItem], list[EmbedItem]]:
    """Return the items of the document, component and subcomponent layers."""
    docs, comps, subs = [], [], []
    for document in documents:
        docs.append(
            EmbedItem(
                document.doc_id,
                summaries[document.doc_id],
                metadata(document.doc_id, "", "document"),
            )
        )
        for component in document.components:
            comps.append(
                EmbedItem(
                    component.component_id,
                    component_text(document, component),
                    metadata(document.doc_id, component.component_id, component.kind),
                )
            )
            for sub in subcomponents.get(component.component_id, ()):
                subs.append(
                    EmbedItem(
                        sub.subcomponent_id,
                        subcomponent_text(document, component, sub),
                        metadata(document.doc_id, component.component_id, sub.kind),
                    )
                )
    return docs, comps, subs


def image_items(
    documents: list[Document], subcomponents: dict[str, list[Subcomponent]]
) -> list[EmbedItem]:
    """Return the items of the image layer: whole images and their regions, keyed by content."""
    items = []
    for document in documents:
        for component in document.components:
            if component.image_path is None:
                continue
            digest = file_digest(component.image_path)
            items.append(
                EmbedItem(
                    component.component_id,
                    f"{digest}|{component.image_path}|",
                    metadata(document.doc_id, component.component_id, "image"),
                )
            )
            for sub in subcomponents.get(component.component_id, ()):
                box = ",".join(str(v) for v in sub.box or ())
                items.append(
                    EmbedItem(
                        sub.subcomponent_id,
                        f"{digest}|{component.image_path}|{box}",
                        metadata(document.doc_id, component.component_id, "region"),
                    )
                )
    return items


def image_embed(embedder: ImageEmbedder) -> Callable[[Sequence[str]], np.ndarray]:
    """Turn `digest|path|box` keys back into image crops for the image embedder."""

    def embed(keys: Sequence[str]) -> np.ndarray:
        paths: list[str] = []
        boxes: list[tuple[int, int, int, int] | None] = []
        for key in keys:
            path, _, box = key.partition("|")[2].rpartition("|")  # "|" may occur in paths
            paths.append(path)
            x1, y1, x2, y2 = (int(v) for v in box.split(",")) if box else (0, 0, 0, 0)
            boxes.append((x1, y1, x2, y2) if box else None)
        return embedder.embed_images(paths, boxes)

    return embed


def file_digest(path: str) -> str:
    """Return a short hash of a file's bytes (a changed image is re-embedded)."""
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()[:16]
