"""PDF documents of an index: a page rendered as PNG, and the original file (at a page).

`/api/documents/{doc_id}/pages/{page}.png` (zero-indexed page) and
`/api/documents/{doc_id}/file#page=N+1`; both read only the file the index recorded for the
document when it was built.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import FileResponse, Response

from serve.pdf_pages import check_page, document_pdf, page_png
from serve.served import ServedIndex, served_index

router = APIRouter(prefix="/api/documents")
State = Annotated[ServedIndex, Depends(served_index)]
DocId = Annotated[str, Path(min_length=1, max_length=512, description="A PDF document's id.")]
PAGE_CACHE = "private, max-age=3600"


@router.get(
    "/{doc_id}/pages/{page}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "The page as PNG."}},
)
def page_image(
    state: State, doc_id: DocId, page: Annotated[int, Path(ge=0, description="Zero-indexed.")]
) -> Response:
    """Render one page of a PDF document (zero-indexed) as PNG; 501 without the pdf extra."""
    path, page_count = document_pdf(state.index.graph, doc_id, state.name)
    check_page(doc_id, page, page_count)
    png = page_png(path, page)
    return Response(png, media_type="image/png", headers={"Cache-Control": PAGE_CACHE})


@router.get(
    "/{doc_id}/file",
    response_class=FileResponse,
    responses={200: {"content": {"application/pdf": {}}, "description": "The PDF."}},
)
def document_file(state: State, doc_id: DocId) -> FileResponse:
    """Return the PDF a document was built from; add `#page=N` to open it at page N (one-based)."""
    path, _ = document_pdf(state.index.graph, doc_id, state.name)
    return FileResponse(
        path, media_type="application/pdf", filename=path.name, content_disposition_type="inline"
    )
