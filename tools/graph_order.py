"""The reading order saved with a layered graph, so opening a large index skips the walk.

`LayeredGraph.reading_order` walks every document's components and their parts (about 0.3 s
of a fresh process on a 193k-node index); `save` writes it beside the nodes as the node
list's position of each rank, and `load` reads it back. A file written before it was saved,
or holding a broken list, has the order computed as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def saved_order(order: dict[str, int], nodes: Sequence[str]) -> list[int]:
    """Return, rank by rank, the position in `nodes` of the node with that rank."""
    position = {node: i for i, node in enumerate(nodes)}
    return [position[node] for node in sorted(order, key=order.__getitem__)]


def loaded_order(payload: dict[str, Any]) -> dict[str, int] | None:
    """Return the reading order held by a graph file's payload (None when it holds none)."""
    positions = payload.get("reading_order")
    nodes = payload.get("nodes")
    if not isinstance(positions, list) or not isinstance(nodes, list):
        return None
    try:
        if positions and min(positions) < 0:  # a negative index would count from the end
            return None
        order = {str(nodes[i][0]): rank for rank, i in enumerate(positions)}
    except (IndexError, TypeError, KeyError):
        return None
    return order if len(order) == len(positions) else None
