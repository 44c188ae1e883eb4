"""Late interaction: score an item by each facet of the question at its best evidence.

A profile holds, per item (a component or document) and per facet (the question, a clause,
a subquery), the item's best similarity over its evidence (its own vector, its
subcomponents). An item scores Σ_f p[f]; items taken together score Σ_f max over members
of p[f] (seed 001, §4.2.2, Eq. 6), so two members covering different facets beat either
alone. FiF's offline reranker and careful selection and LILaC's edge scoring all score this
way; this module is the one place that builds profiles and combines them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.index import IndexLayer
from tools.vector_cache import one_blas_thread

logger = logging.getLogger(__name__)

NO_EVIDENCE = -1.0
"""The profile value of an item with no vector at an evidence layer (the lowest cosine)."""


def item_scores(best: np.ndarray) -> np.ndarray:
    """Return each item's own score Σ_f p[f] from a profile matrix (items × facets)."""
    return np.asarray(best.sum(axis=1))


def joint_scores(best: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Return, per pair (first[i], second[i]) of profile rows, Σ_f max(p_first[f], p_second[f])."""
    return np.asarray(np.maximum(best[first], best[second]).sum(axis=1))


def facet_profiles(
    index: CorpusIndex, facet_texts: Sequence[str], ids: Sequence[str], meter: CostMeter
) -> np.ndarray:
    """Return a (len(ids), len(facets)) matrix of best component/subcomponent similarities.

    Exact SCORE_vec from the vector cache (`CorpusIndex.best_per_parent_of_each`), so documents
    can be profiled too (by their best component or subcomponent); an item with no vector
    below it keeps NO_EVIDENCE.
    """
    with meter.timed("embedding"):
        vectors = index.embed_queries(list(facet_texts))
    matrix = np.full((len(ids), len(vectors)), NO_EVIDENCE, dtype=np.float32)
    row = {node: i for i, node in enumerate(ids)}
    if not vectors:
        return matrix
    evidence_layers: tuple[IndexLayer, ...] = ("component", "subcomponent")
    for layer in evidence_layers:  # all facets at once: one product per layer
        with meter.timed("vector"):
            found, best = index.best_per_parent_of_each(layer, np.stack(vectors), ids)
        rows = [row[node] for node in found]
        matrix[rows] = np.maximum(matrix[rows], best)
    return matrix


@dataclass(frozen=True)
class Profiles:
    """Per-component best similarity to each facet over its evidence rows.

    Rows (subcomponents, optionally the component itself) are grouped by owner:
    component i owns rows `starts[i]:ends[i]` of `scores`.
    """

    components: list[str]
    best: np.ndarray
    scores: np.ndarray
    row_ids: list[str]
    starts: np.ndarray
    ends: np.ndarray

    def position(self) -> dict[str, int]:
        """Map each component id to its profile row."""
        return {cid: i for i, cid in enumerate(self.components)}

    def totals(self) -> np.ndarray:
        """Return each component's single-node score Σ_q max_{c ∈ S(C)} sim(c, q)."""
        return item_scores(self.best)

    def evidence(self, components: Sequence[str]) -> list[str]:
        """Return, per facet, the evidence row with the highest similarity among components."""
        at = self.position()
        rows = np.concatenate([np.arange(self.starts[at[c]], self.ends[at[c]]) for c in components])
        picked = rows[np.argmax(self.scores[rows], axis=0)]
        return [self.row_ids[int(r)] for r in picked]


def build_profiles(owners: Sequence[str], row_ids: Sequence[str], scores: np.ndarray) -> Profiles:
    """Reduce evidence-row similarities (rows × facets) to one profile per owner.

    Args:
        owners: The component owning each row; rows of one component must be contiguous.
        row_ids: The id of each row (a subcomponent, or the component itself).
        scores: Similarity of each row to each facet, shape (rows, facets).

    Raises:
        ValueError: If a component's rows are not contiguous or the shapes disagree.
    """
    scores = np.asarray(scores, dtype=np.float32)
    if scores.ndim != 2 or scores.shape[0] != len(owners) or len(row_ids) != len(owners):
        raise ValueError(f"{len(owners)} owners and {len(row_ids)} ids for scores {scores.shape}")
    if not owners:
        empty = np.zeros(0, dtype=np.int64)
        return Profiles([], np.zeros((0, scores.shape[1]), np.float32), scores, [], empty, empty)
    change = np.flatnonzero(np.array(owners[1:]) != np.array(owners[:-1])) + 1
    starts = np.concatenate([[0], change]).astype(np.int64)
    ends = np.concatenate([change, [len(owners)]]).astype(np.int64)
    components = [owners[int(s)] for s in starts]
    if len(set(components)) != len(components):
        raise ValueError("the rows of each component must be contiguous")
    best = np.maximum.reduceat(scores, starts, axis=0)
    return Profiles(components, best, scores, list(row_ids), starts, ends)


def component_profiles(
    index: CorpusIndex,
    components: Sequence[str],
    facets: np.ndarray,
    meter: CostMeter,
    include_component: bool = False,
) -> Profiles:
    """Profile components against the facet vectors (shape facets × dim), keeping evidence rows.

    A component's evidence rows S(C) are its subcomponents (Eq. 6); its own component
    vector is added when `include_component` is set (the authors' code does), and always
    when it has no subcomponents, so every component present in the index can be scored.
    Images and regions count by the better of their text and image vectors. One matrix
    product per layer from the in-memory layer copies, never one Chroma call per node.
    """
    graph = index.graph
    children = {c: graph.children(c) for c in components}
    with meter.timed("vector"):
        sub_ids, sub_matrix = index.cache.matrix(
            "subcomponent", [s for subs in children.values() for s in subs]
        )
        comp_ids, comp_matrix = index.cache.matrix("component", list(components))
        with one_blas_thread():
            scores = np.concatenate([sub_matrix, comp_matrix]) @ facets.T
        scores = index.fold_image_scores([*sub_ids, *comp_ids], scores, facets)
    row_of = {node: row for row, node in enumerate([*sub_ids, *comp_ids])}
    owners: list[str] = []
    row_ids: list[str] = []
    picks: list[int] = []
    for component in components:
        rows = [s for s in children[component] if s in row_of]
        if (include_component or not rows) and component in row_of:
            rows.append(component)
        owners.extend([component] * len(rows))
        row_ids.extend(rows)
        picks.extend(row_of[r] for r in rows)
    if len(set(owners)) < len(components):
        logger.debug("%d components have no vectors", len(components) - len(set(owners)))
    return build_profiles(owners, row_ids, scores[picks].reshape(len(picks), len(facets)))
