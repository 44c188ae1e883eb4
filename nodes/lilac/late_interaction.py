"""Late-interaction edge scoring (seed 001, §4.2.2, Eq. 6), in plain numpy.

s(e; Q_sub) = Σ_q max_{c ∈ S(C_α) ∪ S(C_β)} sim(f(c), q). The max over the union is the
element-wise max of the two endpoints' per-subquery maxima, so each component is reduced
once to a profile (its best similarity per subquery) and every edge costs one max and one
sum. An isolated component gets a dummy edge (C, ε) scored by its own profile; when an
edge scores no better than its best endpoint alone (a one-sided match), only that
endpoint is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from state.lilac_state import EdgeKind

TIE_TOLERANCE = 1e-6
"""An edge beating its best endpoint by less than this is a one-sided match (float noise)."""
EDGE_KIND_ORDER: dict[str, int] = {"intra": 0, "inter": 1, "dummy": 2, "seed": 3}


@dataclass(frozen=True)
class Edge:
    """An edge (C_α, C_β) of the component layer, or a dummy edge (C, ε) when `target` is None."""

    source: str
    target: str | None
    kind: EdgeKind


@dataclass(frozen=True)
class Unit:
    """A scored retrieval unit: the components an edge returns and its late-interaction score."""

    components: tuple[str, ...]
    kind: EdgeKind
    score: float
    one_sided: bool


@dataclass(frozen=True)
class Profiles:
    """Per-component best similarity to each subquery over its evidence rows.

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
        return np.asarray(self.best.sum(axis=1))

    def evidence(self, components: Sequence[str]) -> list[str]:
        """Return, per subquery, the evidence row with the highest similarity among components."""
        at = self.position()
        rows = np.concatenate([np.arange(self.starts[at[c]], self.ends[at[c]]) for c in components])
        picked = rows[np.argmax(self.scores[rows], axis=0)]
        return [self.row_ids[int(r)] for r in picked]


def build_profiles(owners: Sequence[str], row_ids: Sequence[str], scores: np.ndarray) -> Profiles:
    """Reduce evidence-row similarities (rows × subqueries) to one profile per owner.

    Args:
        owners: The component owning each row; rows of one component must be contiguous.
        row_ids: The id of each row (a subcomponent, or the component itself).
        scores: Similarity of each row to each subquery, shape (rows, subqueries).

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


def score_edges(profiles: Profiles, edges: Sequence[Edge]) -> list[Unit]:
    """Score edges by late interaction; one-sided matches keep only their matching endpoint.

    Edges with an endpoint that has no profile are dropped.
    """
    at = profiles.position()
    usable = [e for e in edges if e.source in at and (e.target is None or e.target in at)]
    if not usable:
        return []
    best, totals = profiles.best, profiles.totals()
    a = np.array([at[e.source] for e in usable])
    b = np.array([at[e.target] if e.target is not None else at[e.source] for e in usable])
    paired = np.array([e.target is not None for e in usable])
    merged = np.maximum(best[a], best[b]).sum(axis=1)
    single = np.maximum(totals[a], totals[b])
    one_sided = paired & (merged <= single + TIE_TOLERANCE)
    units = []
    for i, edge in enumerate(usable):
        if not paired[i]:
            units.append(Unit((edge.source,), edge.kind, float(totals[a[i]]), False))
        elif one_sided[i]:
            keep = edge.source if totals[a[i]] >= totals[b[i]] else edge.target
            units.append(Unit((str(keep),), edge.kind, float(single[i]), True))
        else:
            units.append(Unit((edge.source, str(edge.target)), edge.kind, float(merged[i]), False))
    return units


def top_units(units: Sequence[Unit], width: int) -> list[Unit]:
    """Keep the best `width` distinct units (an edge and its reverse are one unit), best first."""
    best: dict[frozenset[str], Unit] = {}
    for unit in units:
        key = frozenset(unit.components)
        if key not in best or unit.score > best[key].score:
            best[key] = unit
    ranked = sorted(
        best.values(),
        key=lambda u: (-u.score, len(u.components), EDGE_KIND_ORDER[u.kind], u.components),
    )
    return ranked[:width]


def beam_components(beam: Sequence[Unit], limit: int) -> list[str]:
    """Return the distinct components of the beam in beam order, at most `limit` of them."""
    seen: dict[str, None] = {}
    for unit in beam:
        for component in unit.components:
            seen.setdefault(component)
            if len(seen) >= limit:
                return list(seen)
    return list(seen)
