"""The text each node is embedded with: its content, set in its document's context."""

from __future__ import annotations

from state.corpus import Component, Document, Subcomponent
from state.ids import SubcomponentKind
from state.render import table_text

TITLE_IN_LEAD_CHARS = 120
"""A text that names its document's title this early needs no title prefix."""


def with_title(title: str, text: str) -> str:
    """Prefix text with its document title unless the text already opens with it."""
    if not title or title.lower() in text[:TITLE_IN_LEAD_CHARS].lower():
        return text
    return f"{title}: {text}"


def context_title(document: Document, component: Component) -> str:
    """Return the document title, followed for a PDF component by its innermost section title."""
    if component.section and component.section[-1] not in component.text[:TITLE_IN_LEAD_CHARS]:
        return f"{document.title} / {component.section[-1]}"
    return document.title


def component_text(document: Document, component: Component) -> str:
    """Return the text that represents a component in the component layer.

    A PDF component (and its subcomponents) is set under its innermost section title too
    ("Netflix ... / Item 7. ...: text"); a one-sentence paragraph and its sentence then
    share one text, embedded once.
    """
    title = context_title(document, component)
    if component.kind == "table" and component.table is not None:
        caption = component.text or document.title
        return with_title(
            title, f"{caption}\n{table_text(component.table.header, component.table.rows)}"
        )
    return with_title(title, component.text)


def subcomponent_text(document: Document, component: Component, sub: Subcomponent) -> str:
    """Return the text that represents a subcomponent in the subcomponent layer."""
    kind: SubcomponentKind = sub.kind
    title = context_title(document, component)
    if kind == "row":
        caption = component.text or document.title
        return with_title(title, f"{caption}. {sub.text}")
    return with_title(title, sub.text)
