"""LILaC's edge scoring (seed 001, §4.2.2, Eq. 6) on the shared late interaction (tools).

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
from tools.late_interaction import Profiles, joint_scores

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
    merged = joint_scores(best, a, b)
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
