"""Image-layer items of PDF documents: region crops of rendered pages, and text-less pages.

A region component (an image component with a page and a box in points) is embedded as
the crop of its page image, the box turned into pixels at the page's render scale. A page
without a text layer is embedded whole under one component of that page: the page-sized
region that stands for it (a crop of the whole page), else the first component that starts
on it (its OCR text), else one spanning it. That component then also scores by the page's
pixels (tools.image_scores), and image-layer search can return it. Items carry the type
"image", so they compete at component granularity.
"""

from __future__ import annotations

from collections.abc import Mapping

from corpus_builder.embed_content import ImageCrop
from corpus_builder.embed_stage import EmbedItem
from corpus_builder.layer_items import metadata
from corpus_builder.page_images import PageImage
from state.corpus import Component, Document
from tools.pdf_render import pixel_box


def pdf_image_items(
    documents: list[Document], pages: Mapping[tuple[str, int], PageImage]
) -> list[EmbedItem]:
    """Return the image items of PDF regions and text-less pages whose page was rendered."""
    items = []
    for document in documents:
        done: set[str] = set()
        for component in document.components:
            crop = _region_crop(document.doc_id, component, pages)
            if crop is not None:
                meta = metadata(document.doc_id, component.component_id, "image", component.pages)
                items.append(EmbedItem(component.component_id, crop, meta))
                done.add(component.component_id)
        for page in document.textless_pages:
            image = pages.get((document.doc_id, page))
            holder = _page_holder(document, page, done)
            if image is None or holder is None:
                continue
            meta = metadata(document.doc_id, holder.component_id, "image", holder.pages)
            items.append(EmbedItem(holder.component_id, ImageCrop(image.digest, image.path), meta))
            done.add(holder.component_id)
    return items


def _region_crop(
    doc_id: str, component: Component, pages: Mapping[tuple[str, int], PageImage]
) -> ImageCrop | None:
    """Return the crop of a region component's page image, None for other components."""
    if component.kind != "image" or component.box is None or not component.pages:
        return None
    if component.image_path is not None:  # a picture of its own: image_items embeds it
        return None
    image = pages.get((doc_id, component.pages[0]))
    if image is None:
        return None
    box = pixel_box(component.box, image.scale, image.size)
    return None if box is None else ImageCrop(image.digest, image.path, box)


def _page_holder(document: Document, page: int, done: set[str]) -> Component | None:
    """Return the component that carries a text-less page's whole-page vector.

    None when every component starting on the page is a region with its own crop: a
    page-sized region already stands for the page.
    """
    on_page = [c for c in document.components if c.pages is not None and c.pages[0] == page]
    if on_page:
        return next((c for c in on_page if c.component_id not in done), None)
    spanning = (
        c for c in document.components if c.pages is not None and c.pages[0] < page <= c.pages[1]
    )
    return next((c for c in spanning if c.component_id not in done), None)
