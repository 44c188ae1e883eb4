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


def component_text(document: Document, component: Component) -> str:
    """Return the text that represents a component in the component layer.

    A PDF component is set under its innermost section title too ("Item 7. ...: text").
    """
    title = document.title
    if component.section and component.section[-1] not in component.text[:TITLE_IN_LEAD_CHARS]:
        title = f"{title} / {component.section[-1]}"
    if component.kind == "table" and component.table is not None:
        caption = component.text or document.title
        return with_title(
            title, f"{caption}\n{table_text(component.table.header, component.table.rows)}"
        )
    return with_title(title, component.text)


def subcomponent_text(document: Document, component: Component, sub: Subcomponent) -> str:
    """Return the text that represents a subcomponent in the subcomponent layer."""
    kind: SubcomponentKind = sub.kind
    if kind == "row":
        caption = component.text or document.title
        return with_title(document.title, f"{caption}. {sub.text}")
    return with_title(document.title, sub.text)
