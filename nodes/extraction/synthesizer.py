"""The synthesis agent: answer, name the ONE item still needed, or fail, from findings only.

It sees the question, the structured findings and the failed searches, never page text.
With a chat model it decides by one structured call whose arithmetic the calculator
checks; offline (or after an LLM failure) by coverage of the question's items
(`nodes.extraction.synthesis`). It is not forced to answer on the last iteration.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.reasoning import decide_within, fallbacks_of
from nodes.extraction.guards import synthesis_refusal
from nodes.extraction.llm_steps import llm_synthesize
from nodes.extraction.prompts import SYNTHESIZE_VERSION
from nodes.extraction.rules import extractions, llm_budget_left, tried_items
from nodes.extraction.synthesis import Synthesis, offline_synthesis
from state.extraction_state import ExtractionContext, ExtractionState, ExtractionStep, Verdict
from tools.cost import CostMeter


class SynthesizerUpdate(DecisionUpdate, total=False):
    """The keys the synthesizer writes."""

    verdicts: list[Verdict]
    answer: str | None
    trace: list[ExtractionStep]


def as_verdict(result: Synthesis, iteration: int, decided_by: str) -> Verdict:
    """Turn a synthesis into the state's verdict record."""
    return {
        "iteration": iteration,
        "status": result.status,
        "answer": result.answer,
        "sources": list(result.sources),
        "confidence": result.confidence,
        "needs": result.needs,
        "reason": result.reason,
        "calculation": result.calculation,
        "decided_by": decided_by,
    }


def synthesizer(state: ExtractionState, runtime: Runtime[ExtractionContext]) -> SynthesizerUpdate:
    """Judge the findings so far and record the verdict."""
    context = runtime.context
    meter = CostMeter()
    question = state["question"]
    findings = state.get("findings", [])
    failed = state.get("failed_searches", [])
    iteration = extractions(state)
    left = max(0, context.max_iterations - iteration)
    tried = tried_items(state)
    decided = decide_within(
        llm_budget_left(state, context),
        context,
        meter,
        lambda caller: llm_synthesize(caller, meter, question, findings, failed, left, tried),
        lambda: offline_synthesis(question, findings, failed, tried, left == 0),
        [lambda proposal: synthesis_refusal(proposal, question, findings)],
    )
    result: Synthesis = decided.value
    verdict = as_verdict(result, iteration, decided.decided_by)
    cites = f"cites {', '.join(result.sources)}" if result.sources else ""
    record: ExtractionStep = {
        "node": "synthesizer",
        "step": iteration,
        "decided_by": decided.decided_by,
        "reason": "; ".join(filter(None, [result.status, result.reason, cites, decided.note])),
        "query": result.needs or result.answer or "",
        "prompt_version": SYNTHESIZE_VERSION if meter.llm_calls else None,
    }
    update: SynthesizerUpdate = {"verdicts": [verdict], "trace": [record], "cost": meter.as_dict()}
    update.update(fallbacks_of("synthesizer", decided))
    if result.status == "answer" and context.answer:  # the verdict keeps it either way
        update["answer"] = result.answer
    return update
