"""The reasoning module (seed 003, Fig. 3d): answer a question from some nodes' evidence.

With a model, the evidence (the nodes' contents and their kept candidates) goes before the
question; the offline twin answers with the best kept evidence itself: the sentence, row
or region with the highest score among the nodes' kept candidates.
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.core.guards import unsupported_answer
from nodes.core.prompts import as_data
from nodes.core.reasoning import Decided, decide_within
from nodes.mmapg.examination import evidence_snippet
from nodes.mmapg.prompts import ANSWER_SYSTEM, ANSWER_USER
from nodes.mmapg.schemas import AnswerReply
from state.mmapg_state import Evidence, MMAPGContext, PlanNode
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

EVIDENCE_PER_NODE = 3
"""Kept candidates per node the answer prompt quotes."""
NO_ANSWER = "no answer found"


def best_evidence(nodes: Sequence[PlanNode]) -> Evidence | None:
    """Return the highest-scored kept candidate of some nodes."""
    found = [item for node in nodes for item in node["found"]]
    return max(found, key=lambda item: item["score"], default=None)


def evidence_text(index: CorpusIndex, nodes: Sequence[PlanNode]) -> str:
    """Render nodes as answer evidence: each node's content and its best kept candidates."""
    lines = []
    for node in nodes:
        lines.append(f"[{node['id']}] {node['type']}: {node['content']}")
        lines.extend(
            f"  - {evidence_snippet(index.graph, item)}"
            for item in node["found"][:EVIDENCE_PER_NODE]
        )
    return as_data("\n".join(lines), "nodes and their evidence") if lines else "(none)"


def answer(
    index: CorpusIndex,
    question: str,
    instruction: str,
    nodes: Sequence[PlanNode],
    context: MMAPGContext,
    meter: CostMeter,
    llm_allowed: bool,
) -> Decided:
    """Answer from the given nodes: the model's short answer, or the best kept evidence."""

    def with_llm(caller: StructuredCaller) -> str:
        user = ANSWER_USER.format(
            evidence=evidence_text(index, nodes), question=question, instruction=instruction
        )
        return caller.call(AnswerReply, ANSWER_SYSTEM, user, meter).answer

    def offline() -> str:
        best = best_evidence(nodes)
        return evidence_snippet(index.graph, best) if best else NO_ANSWER

    def check(proposal: str) -> str | None:
        return unsupported_answer(proposal, [evidence_text(index, nodes)])

    return decide_within(llm_allowed, context, meter, with_llm, offline, [check])
