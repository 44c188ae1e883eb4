"""ReAgent's answer assembler A_A: rank the surviving assertions' evidence, then the rest.

The ranking puts the components behind the assertions that survived verification first
(by their fused score), then every other retrieved component by its
reciprocal-rank fusion over the sub-questions' evidence lists. When asked, the answer is
written from the top components by the toolkit's answerer (LLM or offline extract); when no
consistent knowledge remains, the run says so instead of answering.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.answering import answer_text, decide_answer
from nodes.core.decision import CostUpdate, decision_record
from nodes.reagent.knowledge import union
from state.core import Ranked, ranked_entry
from state.reagent_state import Assertion, Evidence, ReAgentContext, ReAgentState, ReAgentStep
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.rank_fusion import fused_order

ANSWER_COMPONENTS = 5
"""Top components the answerer reads."""
NO_ANSWER = "No consistent answer: the evidence found contradicts itself."
"""What the run says instead of an answer when nothing consistent remains."""


class AssemblerUpdate(CostUpdate, total=False):
    """The keys the assembler writes."""

    ranking: list[Ranked]
    answer: str | None
    trace: list[ReAgentStep]


def assemble(
    evidence: dict[str, list[Evidence]], assertions: list[Assertion], k: int
) -> list[Ranked]:
    """Return the top-k: surviving assertions' components first, the rest by fused rank."""
    lists = [evidence[key] for key in sorted(evidence, key=int)]
    fused = dict(fused_order([[e["component_id"] for e in items] for items in lists]))
    about = {e["component_id"]: e for items in lists for e in items}
    first = sorted(assertions, key=lambda a: (a["subquestion"], -fused.get(a["evidence"][0], 0.0)))
    order = list(dict.fromkeys([a["evidence"][0] for a in first if a["evidence"][0] in about]))
    order += [c for c in sorted(fused, key=lambda c: -fused[c]) if c not in order]
    return [
        ranked_entry(c, about[c]["doc_id"], about[c]["type"], round(fused[c], 6)) for c in order[:k]
    ]


def assembler(state: ReAgentState, runtime: Runtime[ReAgentContext]) -> AssemblerUpdate:
    """Rank the evidence and, when asked and consistent, answer."""
    context = runtime.context
    meter = CostMeter()
    surviving = union(state.get("knowledge", {}))
    ranking = assemble(state.get("evidence", {}), surviving, context.top_k)
    consistent = state.get("outcome", "consistent") == "consistent"
    answer: str | None = None
    if context.answer and consistent:
        index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
        ids = [r["component_id"] for r in ranking[:ANSWER_COMPONENTS]]
        answer = answer_text(decide_answer(index, state["question"], ids, context, meter))
    elif context.answer:
        answer = NO_ANSWER
    reason = (
        f"{len(surviving)} surviving assertions first, {len(ranking)} components"
        if consistent
        else "no consistent knowledge remains; not answering"
    )
    trace = decision_record(
        "assembler", "offline", reason, None, surviving=[a["id"] for a in surviving]
    )
    return {"ranking": ranking, "answer": answer, "trace": [trace], "cost": meter.as_dict()}
