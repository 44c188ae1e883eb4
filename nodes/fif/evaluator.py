"""The evaluator node: judge the pending traversal and append it to the history, failures too."""

from __future__ import annotations

from collections.abc import Collection

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.guards import unsupported_answer
from nodes.core.question import analysis_in
from nodes.core.reasoning import Decided, decide, fallbacks_of
from nodes.fif.bridge import Bridge, bridge_subquery
from nodes.fif.chain_evidence import prefetch_chain_residuals
from nodes.fif.hop import hop_residual
from nodes.fif.judging import Verdict, chain_coverage, judge_offline, judge_with_llm
from nodes.fif.plan_heuristics import compares_named_entities
from nodes.fif.traversal import step_region
from state.fif_context import FiFContext
from state.fif_state import FiFState, StepRecord, Subquery
from state.views import top_pages
from tools.component_terms import full_text
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter


class EvaluatorUpdate(DecisionUpdate, total=False):
    """Keys the evaluator writes."""

    history: list[StepRecord]
    subqueries: list[Subquery]
    pending_step: StepRecord | None


def evaluator(state: FiFState, runtime: Runtime[FiFContext]) -> EvaluatorUpdate:
    """Judge the last traversal, update the subqueries it answered, record the step."""
    context = runtime.context or FiFContext()
    step = state.get("pending_step")
    if step is None:
        raise ValueError("evaluator reached without a pending traversal")
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    subqueries = list(state.get("subqueries", []))
    decided = decide(
        state,
        context,
        meter,
        lambda caller: judge_with_llm(
            caller, index, state["question"], subqueries, step, context, meter
        ),
        lambda: judge_offline(
            index,
            state["question"],
            subqueries,
            list(state.get("history", [])),
            step,
            context,
            meter,
        ),
        [lambda verdict: verdict_refusal(index, verdict, step, list(state.get("history", [])))],
    )
    verdict: Verdict = decided.value
    declare_hop_residual(index, step)
    visited = top_pages([*state.get("history", []), step])
    bridge = bridge_of(index, state, step, verdict.success, context, meter, visited)
    prefetch_chain_residuals(index, state["question"], list(state.get("candidates", {})))
    record = judged_record(step, verdict, decided, meter)
    if bridge:
        record["bridge"], record["bridge_pages"] = bridge.text, list(bridge.pages)
    return {
        "history": [record],
        "subqueries": verdict.updates,
        "pending_step": None,
        "cost": meter.as_dict(),
        **fallbacks_of(f"evaluator (step {step['step']})", decided),
    }


def verdict_refusal(
    index: CorpusIndex, verdict: Verdict, step: StepRecord, history: list[StepRecord]
) -> str | None:
    """Return why an LLM verdict is refused, or None.

    Refused: a success whose components (and its anchors', as the offline judge counts a
    chain) share no content word with the subquery, or an
    answer the step's components do not contain.
    """
    if verdict.success and chain_coverage(index, history, step) == 0:
        return "judged a success, but no component shares a content word with the subquery"
    texts = [full_text(index.graph, c["id"]) for c in step["components"]]
    for update in verdict.updates[1:]:  # the first is the step's own subquery, not an answer
        problem = unsupported_answer(update["answer"], texts) if update["answer"] else None
        if problem:
            return f"subquery {update['index']}: {problem}"
    return None


def declare_hop_residual(index: CorpusIndex, step: StepRecord) -> None:
    """Declare the residual question of a link hop anchored at a global step, ahead of use.

    The orchestrator usually follows a global step's links next; declared before the
    bridge subquery, whose hop comes after, the helper process embeds it first.
    """
    if step["components"] and step["strategy"]["doc_mode"] != "neighbors":
        components = step_region(step).components(index)
        index.prefetch_queries([hop_residual(index, step["subquery"], components)])


def bridge_of(
    index: CorpusIndex,
    state: FiFState,
    step: StepRecord,
    success: bool,
    context: FiFContext,
    meter: CostMeter,
    visited: Collection[str] = (),
) -> Bridge | None:
    """Return the bridge subquery of a successful global step (None for hops and failures).

    The bridge entity names a document no step had on top yet (`visited`): a chain walks on.
    A question comparing entities it names (`compares_named_entities`) reads none unless
    `tuning.comparison_bridges`: its answer is on their own pages.
    """
    tuning, question = context.tuning, state["question"]
    if tuning.bridge_hops < 1 or not success or step["strategy"]["doc_mode"] == "neighbors":
        return None
    if not tuning.comparison_bridges and compares_named_entities(
        analysis_in(state), state.get("subqueries", [])
    ):
        return None
    bridge = bridge_subquery(index, question, step, tuning, meter, visited)
    if bridge:  # embedded while the anchor's links are followed: its hop comes after
        index.prefetch_queries([bridge.text])
    return bridge


def judged_record(
    step: StepRecord, verdict: Verdict, decided: Decided, meter: CostMeter
) -> StepRecord:
    """Return the step with the evaluator's verdict, notes and the step's whole cost."""
    notes = list(step["notes"])
    if decided.decided_by != "llm":
        notes.append(
            f"evaluator: {decided.decided_by}" + (f" ({decided.note})" if decided.note else "")
        )
    return {
        **step,
        "success": verdict.success,
        "answerable": verdict.answerable,
        "reason": verdict.reason,
        "notes": notes,
        "cost": _summed(step["cost"], meter.as_dict()),
    }


def _summed(left: dict[str, float], right: dict[str, float]) -> dict[str, float]:
    return {key: round(left.get(key, 0) + right.get(key, 0), 6) for key in {*left, *right}}
