"""A read-only view of one node of the layered graph (tools.layered_graph)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NodeView:
    """A read-only view of one node: id, layer, kind, owning document and content."""

    node_id: str
    layer: int
    kind: str
    doc_id: str
    text: str
    attrs: dict[str, Any]

    @property
    def pages(self) -> tuple[int, int] | None:
        """Return the zero-indexed (first, last) page of a PDF (sub)component, else None."""
        span = self.attrs.get("pages")
        return (int(span[0]), int(span[1])) if span else None

    @property
    def section(self) -> tuple[str, ...]:
        """Return the section path of a PDF component (of a subcomponent's component: ())."""
        return tuple(self.attrs.get("section", ()))
