"""IRCoT's ranker node: the evidence pool in the order it was retrieved, capped at top_k.

The paper returns every paragraph the loop collected, first-retrieved first, with a cap
(15 for its reader); it does not re-score them. We do the same with `top_k` as the cap.
When the pool holds fewer than top_k components and `pad_ranking` is on, the question's
next hits (kept by the first retrieval) fill the rest, after every collected component,
so R@k is measured on rankings of one length. With `answer` set and no answer from the
chain, the shared answerer reads the ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from nodes.core.answering import answer_text, decide_answer
from nodes.core.decision import CostUpdate
from nodes.ircot.rules import retrievals, stop_reason
from state.core import Ranked, ranked_entry
from state.ircot_state import IrcotContext, IrcotState, IrcotStep, PoolEntry
from tools.corpus_index import open_index
from tools.cost import CostMeter


class RankerUpdate(CostUpdate, total=False):
    """The keys the ranker writes."""

    ranking: list[Ranked]
    answer: str | None
    history: list[IrcotStep]


def collected(
    pool: Sequence[PoolEntry], reserve: Sequence[Ranked], k: int, pad: bool
) -> list[Ranked]:
    """Return the top-k: pool entries in retrieval order, then reserve hits if padding."""
    ranking: list[Ranked] = [
        ranked_entry(entry["component_id"], entry["doc_id"], entry["type"], entry["score"])
        for entry in pool[:k]
    ]
    if pad:
        seen = {entry["component_id"] for entry in ranking}
        extra = [hit for hit in reserve if hit["component_id"] not in seen]
        ranking.extend(extra[: k - len(ranking)])
    return ranking


def ranker(state: IrcotState, runtime: Runtime[IrcotContext]) -> RankerUpdate:
    """Rank the collected components and, when asked, answer from them."""
    context = runtime.context
    meter = CostMeter()
    pool = state.get("pool", [])
    ranking = collected(pool, state.get("reserve", []), context.top_k, context.pad_ranking)
    padded = max(0, len(ranking) - len(pool))
    record: IrcotStep = {
        "node": "ranker",
        "step": retrievals(state),
        "decided_by": "retrieval-order",
        "reason": (
            f"stopped: {stop_reason(state, context)}; {len(pool)} collected, "
            f"{len(ranking) - padded} ranked, {padded} padded from the question's hits"
        ),
    }
    update: RankerUpdate = {"ranking": ranking, "history": [record]}
    if context.answer and not state.get("answer"):
        index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
        ids = [entry["component_id"] for entry in ranking]
        decided = decide_answer(index, state["question"], ids, context, meter)
        update["answer"] = answer_text(decided)
    update["cost"] = meter.as_dict()
    return update
