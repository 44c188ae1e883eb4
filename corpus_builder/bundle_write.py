"""Write documents as bundle records (`corpus.jsonl` lines) that `read_bundle` reads back.

PDF layout travels in optional fields: a document's `facts` and `page_count`; a
component's `pages` ([first, last], zero-indexed), `section` (titles, outermost first),
`page_starts`, `refers_to`, `box` ([x1, y1, x2, y2] in points, top-left origin) and a
region's `lines` ([{"text", "box"}]); a table's `row_pages`. Readers that do not know them
ignore them, so the bundle format stays backward compatible.
"""

from __future__ import annotations

from typing import Any

from state.corpus import Component, Document


def document_record(document: Document) -> dict[str, Any]:
    """Return the bundle record of a document."""
    record: dict[str, Any] = {
        "doc_id": document.doc_id,
        "title": document.title,
        "url": document.url,
        "components": [component_record(c) for c in document.components],
    }
    if document.facts:
        record["facts"] = list(document.facts)
    if document.page_count:
        record["page_count"] = document.page_count
    if document.filing:
        record["filing"] = dict(document.filing)
    return record


def component_record(component: Component) -> dict[str, Any]:
    """Return the bundle record of a component, with its layout fields when it has them."""
    record: dict[str, Any] = {
        "component_id": component.component_id,
        "type": component.kind,
        "links": list(component.links),
    }
    if component.kind == "table" and component.table is not None:
        table = component.table
        record["caption"] = component.text
        record["table"] = {"header": list(table.header), "rows": [list(r) for r in table.rows]}
        if table.row_pages:
            record["table"]["row_pages"] = list(table.row_pages)
        if table.cell_links:
            record["cell_links"] = [[list(cell) for cell in row] for row in table.cell_links]
    elif component.kind == "image":
        record["caption"] = component.text
        if component.image_path:
            record["image_path"] = component.image_path
    else:
        record["text"] = component.text
    if component.pages is not None:
        record["pages"] = list(component.pages)
        if component.page_starts:
            record["page_starts"] = list(component.page_starts)
    if component.section:
        record["section"] = list(component.section)
    if component.refers_to:
        record["refers_to"] = list(component.refers_to)
    if component.box is not None:
        record["box"] = [round(v, 1) for v in component.box]
    if component.lines:
        record["lines"] = [
            {"text": line.text, "box": [round(v, 1) for v in line.box]} for line in component.lines
        ]
    return record
