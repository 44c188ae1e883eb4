"""PDF documents of an index: a page's size, the page rendered as PNG, the original file.

`/api/documents/{doc_id}/pages/{page}` (zero-indexed page: its size in points, what boxes are
measured in), `/api/documents/{doc_id}/pages/{page}.png?scale=S` and
`/api/documents/{doc_id}/file#page=N+1`; each reads only the file the index recorded for the
document when it was built (serve.pdf_pages).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse, Response

from serve.pdf_pages import (
    MAX_PAGE,
    MAX_SCALE,
    MIN_SCALE,
    RENDER_SCALE,
    check_page,
    document_pdf,
    page_png,
    page_size,
)
from serve.served import IndexState

router = APIRouter(prefix="/api/documents")
DocId = Annotated[str, Path(min_length=1, max_length=512, description="A PDF document's id.")]
Page = Annotated[int, Path(ge=0, le=MAX_PAGE, description="Zero-indexed.")]
Scale = Annotated[
    float,
    Query(ge=MIN_SCALE, le=MAX_SCALE, description="Pixels per PDF point, in steps of 0.25."),
]
PAGE_CACHE = "private, max-age=3600"


@router.get(
    "/{doc_id}/pages/{page}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "The page as PNG."}},
)
def page_image(
    state: IndexState, doc_id: DocId, page: Page, scale: Scale = RENDER_SCALE
) -> Response:
    """Render one page of a PDF document (zero-indexed) as PNG; 501 without the pdf extra."""
    path, page_count = document_pdf(state.index.graph, doc_id, state.name)
    check_page(doc_id, page, page_count)
    png = page_png(path, page, scale)
    return Response(png, media_type="image/png", headers={"Cache-Control": PAGE_CACHE})


@router.get("/{doc_id}/pages/{page}")
def page_facts(state: IndexState, doc_id: DocId, page: Page) -> dict[str, Any]:
    """Return a page's size in PDF points, the frame every box of the index is measured in.

    Boxes are `[x1, y1, x2, y2]` with the origin at the page's top-left corner, so a box
    covers `x1 / width` to `x2 / width` of the rendered image's width, whatever its scale.
    """
    path, page_count = document_pdf(state.index.graph, doc_id, state.name)
    check_page(doc_id, page, page_count)
    width, height = page_size(path, page)
    return {
        "doc_id": doc_id,
        "title": state.index.graph.title(doc_id),
        "page": page,
        "page_count": page_count,
        "width": round(width, 2),
        "height": round(height, 2),
    }


@router.get(
    "/{doc_id}/file",
    response_class=FileResponse,
    responses={200: {"content": {"application/pdf": {}}, "description": "The PDF."}},
)
def document_file(state: IndexState, doc_id: DocId) -> FileResponse:
    """Return the PDF a document was built from; add `#page=N` to open it at page N (one-based)."""
    path, _ = document_pdf(state.index.graph, doc_id, state.name)
    return FileResponse(
        path, media_type="application/pdf", filename=path.name, content_disposition_type="inline"
    )
