"""Search the triplet text KB: a component scores its best triplet (seed 003, §3.2, eqs. 1–2).

An index built with `fif build --triplets` has a `triplet` collection (corpus_builder.
triplet_kb): the triplets of every paragraph and table row, and the own text of units
without triplets, each carrying its document and component. `score_triplets` queries it
and keeps the best entry per component with SCORE_vec's own widening search
(tools.search); the evidence is the paragraph, sentence or row the triplet came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from state.ids import triplet_owner
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.index import Hit
from tools.widening import ScoredNode, widening


def has_triplet_kb(index: CorpusIndex) -> bool:
    """Tell whether the index was built with a triplet KB that holds triplets."""
    built = index.manifest.triplets
    return built is not None and built.triplets > 0


def score_triplets(
    index: CorpusIndex,
    query: str,
    k: int,
    doc_ids: Sequence[str] | None = None,
    meter: CostMeter | None = None,
) -> list[ScoredNode]:
    """Return the top-k components by their best triplet-KB entry (inside `doc_ids` if given)."""
    meter = meter or CostMeter()
    with meter.timed("embedding"):
        vector = index.embed_query(query)
    doc_ids = index.within(doc_ids)

    def hits_of(n: int) -> tuple[list[Hit], bool]:
        with meter.timed("vector"):
            found = index.layers.query("triplet", vector, n, doc_ids)
        owned = [  # a triplet stands for the paragraph, sentence or row it came from
            replace(hit, node_id=triplet_owner(hit.node_id, hit.kind))
            for hit in found
            if hit.component_id in index.graph
        ]
        return owned, len(found) < n

    return widening(index, hits_of, "component", "subcomponent", k, doc_ids)
