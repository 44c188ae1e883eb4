"""What each layer index holds: node ids, the text (or image key) to embed, and metadata.

An image item's content is `digest|path|box`, so a changed image file or region box is
re-embedded. The metadata keys are those of tools.index.METADATA_KEYS.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np

from corpus_builder.contextual import contents_in_context
from corpus_builder.embed_content import EmbedContent, ImageCrop, standalone_text
from corpus_builder.embed_stage import EmbedItem
from corpus_builder.texts import component_text, subcomponent_text
from state.corpus import LAYERS, Component, Document, Subcomponent
from tools.embedders import ImageEmbedder
from tools.sparse_index import SparseRow

SPANS_OF = {"paragraph": "sentence", "image": "region"}
"""Parts that are spans of their component's text (a paragraph's sentences, the text lines
of a figure read from a PDF), so one pass over the component embeds them all in context."""


def metadata(
    doc_id: str, component_id: str, kind: str, pages: tuple[int, int] | None = None
) -> dict[str, str | int]:
    """Return a vector's metadata under the index's keys (tools.index.METADATA_KEYS).

    A PDF node also carries `page_first` and `page_last` (tools.index.PAGE_KEYS), so a query
    can be filtered to pages (`where={"page_first": {"$lte": 12}}`).
    """
    meta: dict[str, str | int] = {"doc_id": doc_id, "component_id": component_id, "type": kind}
    if pages is not None:
        meta["page_first"], meta["page_last"] = pages
    return meta


def embed_items(
    documents: list[Document],
    subcomponents: dict[str, list[Subcomponent]],
    summaries: dict[str, str],
    contextual: bool | Collection[str] = False,
) -> tuple[list[EmbedItem], list[EmbedItem], list[EmbedItem]]:
    """Return the items of the document, component and subcomponent layers.

    In `contextual` documents (True: all; else the doc ids given), a paragraph split into
    sentences and its sentences get contents that embed them in one pass
    (corpus_builder.contextual).
    """
    docs, comps, subs = [], [], []
    for document in documents:
        doc_id = document.doc_id
        docs.append(EmbedItem(doc_id, summaries[doc_id], metadata(doc_id, "", "document")))
        for component in document.components:
            parts = subcomponents.get(component.component_id, [])
            in_context = contextual is True or (
                not isinstance(contextual, bool) and doc_id in contextual
            )
            content, part_contents = _contents(document, component, parts, in_context)
            meta = metadata(doc_id, component.component_id, component.kind, component.pages)
            comps.append(EmbedItem(component.component_id, content, meta))
            subs += [
                EmbedItem(
                    part.subcomponent_id,
                    part_content,
                    metadata(doc_id, component.component_id, part.kind, part.pages),
                )
                for part, part_content in zip(parts, part_contents, strict=True)
            ]
    return docs, comps, subs


def sparse_items(
    documents: list[Document],
    subcomponents: dict[str, list[Subcomponent]],
    summaries: dict[str, str],
) -> dict[str, list[tuple[SparseRow, str]]]:
    """Return each layer's (row, text) pairs for its BM25 index: the texts the vectors embed."""
    layers = zip(
        LAYERS,
        embed_items(documents, subcomponents, summaries),
        strict=True,
    )
    return {
        name: [
            (
                SparseRow(
                    item.node_id,
                    item.metadata["doc_id"],
                    item.metadata["component_id"],
                    item.metadata["type"],
                ),
                standalone_text(item.content),
            )
            for item in items
        ]
        for name, items in layers
    }


def _contents(
    document: Document, component: Component, parts: list[Subcomponent], contextual: bool
) -> tuple[EmbedContent, list[EmbedContent]]:
    text = component_text(document, component)
    alone = [subcomponent_text(document, component, part) for part in parts]
    part_kind = SPANS_OF.get(component.kind)
    spans = bool(parts) and all(part.kind == part_kind for part in parts)
    if contextual and spans:
        return contents_in_context(document.title, text, [p.text for p in parts], alone)
    return text, list[EmbedContent](alone)


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
                    ImageCrop(digest, component.image_path),
                    metadata(document.doc_id, component.component_id, "image"),
                )
            )
            for sub in subcomponents.get(component.component_id, ()):
                items.append(
                    EmbedItem(
                        sub.subcomponent_id,
                        ImageCrop(digest, component.image_path, sub.box or None),
                        metadata(document.doc_id, component.component_id, "region"),
                    )
                )
    return items


def image_embed(embedder: ImageEmbedder) -> Callable[[Sequence[EmbedContent]], np.ndarray]:
    """Embed image items (ImageCrop contents) with the image embedder."""

    def embed(contents: Sequence[EmbedContent]) -> np.ndarray:
        crops = [c for c in contents if isinstance(c, ImageCrop)]
        if len(crops) != len(contents):
            raise TypeError("the image layer embeds only ImageCrop contents")
        return embedder.embed_images([c.path for c in crops], [c.box for c in crops])

    return embed


def file_digest(path: str) -> str:
    """Return a short hash of a file's bytes (a changed image is re-embedded)."""
    return hashlib.sha1(Path(path).read_bytes()).hexdigest()[:16]
