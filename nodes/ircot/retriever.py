"""IRCoT's retriever node: search with the question (step 0) or the latest chain sentence.

Each query retrieves K components (`retrieve_k`), scored by their best subcomponent with
the single-shot search of `tools.search` (BM25 by default, as the paper does; dense or
hybrid by `search_mode`). The ones not yet in the evidence pool join it, so the pool keeps
the order of first retrieval. Step 0 also keeps the question's next hits as a reserve that
can fill a short final ranking.
"""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate
from nodes.ircot.rules import retrievals
from state.core import Ranked
from state.ircot_state import IrcotContext, IrcotState, IrcotStep, PoolEntry
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.search import ScoredNode, dense_search

logger = logging.getLogger(__name__)


class RetrieverUpdate(CostUpdate, total=False):
    """The keys the retriever writes."""

    pool: list[PoolEntry]
    reserve: list[Ranked]
    history: list[IrcotStep]


def pool_entry(node: ScoredNode, step: int) -> PoolEntry:
    """Turn a search hit into a pool entry found at a step."""
    return {**node.ranked(), "step": step, "evidence": node.evidence}


def query_of(state: IrcotState, step: int) -> tuple[str, str]:
    """Return the query of a retrieval step and who wrote it (the question, or the reasoner)."""
    if step == 0:
        return state["question"], "question"
    chain = state.get("chain", [])
    if not chain or not state.get("query"):
        raise ValueError(f"retrieval step {step} has no chain sentence to search with")
    return state["query"], chain[-1]["decided_by"]


def retriever(state: IrcotState, runtime: Runtime[IrcotContext]) -> RetrieverUpdate:
    """Retrieve K components for the current query and add the new ones to the pool."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    step = retrievals(state)
    query, author = query_of(state, step)
    k = context.retrieve_k
    depth = max(k, context.top_k) if step == 0 and context.pad_ranking else k
    found = dense_search(index, query, "subcomponent", depth, meter, mode=context.search_mode)
    hits = found[:k]
    known = {entry["component_id"] for entry in state.get("pool", [])}
    new = [pool_entry(node, step) for node in hits if node.node_id not in known]
    record: IrcotStep = {
        "node": "retriever",
        "step": step,
        "decided_by": author,
        "reason": f"{len(new)} new of {len(hits)} retrieved",
        "query": query,
        "retrieved": [node.node_id for node in hits],
        "new_components": [entry["component_id"] for entry in new],
    }
    logger.debug("IRCoT retrieval %d: %s", step, record["reason"])
    update: RetrieverUpdate = {"pool": new, "history": [record], "cost": meter.as_dict()}
    if step == 0:
        update["reserve"] = [node.ranked() for node in found[k:]]
    return update
