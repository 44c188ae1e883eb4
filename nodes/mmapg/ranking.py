"""The ranking MMAPG returns: what its Retrieval nodes kept, then what they only retrieved.

The kept components come first, taken in turn from each Retrieval node in the order the
graph grew them (each node's best first, then each node's second, ...), so every hop's
best evidence is near the top rather than one node's long list pushing the next hop's find
down. Then the candidates retrieved but not kept (rejected by the examination or outside
the radius), by score. A component appears once, at its first place.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from nodes.mmapg.graph_view import of_type
from state.core import Ranked, ranked_entry
from state.mmapg_state import Evidence, PlanNode


def interleaved(lists: Sequence[Sequence[Evidence]]) -> list[Evidence]:
    """Return the items of several best-first lists taken in turn, first list first."""
    return [item for row in zip_longest(*lists) for item in row if item is not None]


def ranked(nodes: Sequence[PlanNode], top_k: int) -> list[Ranked]:
    """Rank components: kept ones node by node in turn, then the others by score."""
    retrievals = of_type(nodes, "retrieval")
    kept = interleaved([node["found"] for node in retrievals])
    others = sorted(
        (item for node in retrievals for item in node["others"]),
        key=lambda item: (-item["score"], item["component_id"]),
    )
    ranking: dict[str, Ranked] = {}
    for item in [*kept, *others]:
        if item["component_id"] in ranking:
            continue
        ranking[item["component_id"]] = ranked_entry(
            item["component_id"], item["doc_id"], item["kind"], item["score"]
        )
        if len(ranking) >= top_k:
            break
    return list(ranking.values())
