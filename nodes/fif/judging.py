"""The evaluator's judgement of one traversal: offline (scores + graph lookahead) or by the LLM.

Offline, a step succeeds when its best component scores at least `success_score`. A
success answers its subquery unless the evidence links onward to documents that match
the question well (`link_follow_score`; onward includes the pages that link to the top
components, `nodes.fif.hop.reachable`): then the hop is relevant but unfinished, and the
orchestrator follows the links. A step that already followed links answers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import floor

from nodes.core.lexical import covered_share, covered_terms
from nodes.core.reasoning import numbered, with_images
from nodes.fif.hop import reachable
from nodes.fif.prompts import EVALUATOR_SYSTEM, EVALUATOR_USER
from nodes.fif.schemas import Evaluation
from state.fif_context import FiFContext
from state.fif_state import StepRecord, Subquery, SubqueryStatus
from state.views import unresolved
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller
from tools.search import best_per_parent

ANSWER_CHARS = 200
LOOKAHEAD_COMPONENTS = 3


@dataclass
class Verdict:
    """The evaluator's outcome for a step."""

    success: bool
    answerable: bool
    reason: str
    updates: list[Subquery] = field(default_factory=list)


def evidence_text(index: CorpusIndex, found: dict[str, object]) -> str:
    """Return the text of a found component's evidence node (its best sentence or row)."""
    node = str(found.get("evidence") or found["id"])
    return " ".join(index.graph.node(node).text.split())[:ANSWER_CHARS]


def onward_link(
    index: CorpusIndex, question: str, step: StepRecord, meter: CostMeter
) -> tuple[str, float] | None:
    """Return the best document a hop from the step's top evidence reaches, scored against Q."""
    top = step["components"][:LOOKAHEAD_COMPONENTS]
    docs = list(dict.fromkeys(c["doc_id"] for c in top))
    linked = reachable(index.graph, docs, [c["id"] for c in top])
    visited = {d["id"] for d in step["documents"]}
    targets = [doc for doc in linked if doc not in visited]
    if not targets:
        return None
    with meter.timed("embedding"):
        vector = index.embed_query(question)
    scores = best_per_parent(index, vector, targets, "component", meter)
    doc, (score, _) = max(scores.items(), key=lambda item: item[1][0])
    return doc, score


def chain_coverage(index: CorpusIndex, history: list[StepRecord], step: StepRecord) -> float:
    """Return how much of the subquery the step's top components and its anchors' cover.

    A bridge's evidence is spread over the hops, so the anchors' components count too.
    """
    nodes = [c["id"] for c in step["components"][:LOOKAHEAD_COMPONENTS]]
    anchor = step["anchor"]
    while anchor is not None and anchor < len(history):
        earlier = history[anchor]
        nodes += [c["id"] for c in earlier["components"][:LOOKAHEAD_COMPONENTS]]
        anchor = earlier["anchor"]
    return covered_share(step["subquery"], covered_terms(index, nodes))


def _floored(score: float) -> str:
    """Print a score floored to three places: one just under a bar never prints equal to it."""
    return f"{floor(score * 1000) / 1000:.3f}"


def judge_offline(
    index: CorpusIndex,
    question: str,
    subqueries: list[Subquery],
    history: list[StepRecord],
    step: StepRecord,
    context: FiFContext,
    meter: CostMeter,
) -> Verdict:
    """Judge a step from its scores, the words it covers and what its evidence links to.

    Success needs a best score of at least success_score. A non-neighbors step whose
    evidence links on to documents that fit Q is a relevant but unfinished bridge; else it
    must cover min_coverage of the subquery. A neighbors hop answers the subquery when the
    chain (this hop plus its anchors) covers min_coverage of it.
    """
    components = step["components"]
    if not components:
        return Verdict(
            False,
            False,
            "nothing found"
            + (
                " (the anchor has no linked documents)"
                if step["strategy"]["doc_mode"] == "neighbors"
                else ""
            ),
        )
    best = components[0]["score"]
    hop = step["strategy"]["doc_mode"] == "neighbors"
    # A hop's target answers the part of Q its anchor left open, so it matches Q less.
    needed = context.tuning.success_score - (context.tuning.hop_margin if hop else 0.0)
    if best < needed:
        return Verdict(False, False, f"best score {_floored(best)} < {needed:.3f}")
    covered = chain_coverage(index, history, step)
    reason = f"best score {best:.2f}, coverage {covered:.0%}"
    if hop:
        answerable = covered >= context.tuning.min_coverage
        if not answerable:
            return Verdict(False, False, reason + " along the chain: the hop missed")
    else:
        onward = onward_link(index, question, step, meter)
        follow = onward is not None and onward[1] >= context.tuning.link_follow_score
        if follow and onward is not None:
            reason += f"; evidence links on to {index.graph.title(onward[0])!r} ({onward[1]:.2f})"
        elif covered < context.tuning.min_coverage:
            return Verdict(False, False, reason + ": too little of the subquery is covered")
        answerable = not follow
    updates = _updates(index, subqueries, step, answerable, context, meter)
    return Verdict(True, answerable, reason, updates)


def _updates(
    index: CorpusIndex,
    subqueries: list[Subquery],
    step: StepRecord,
    answerable: bool,
    context: FiFContext,
    meter: CostMeter,
) -> list[Subquery]:
    """Mark the step's subquery, and any open subquery the top component also answers.

    An open subquery answered so records the component (`Subquery.found`): the reranker
    keeps it in the top k as if the subquery's own hop had found it.
    """
    answer = evidence_text(index, step["components"][0])  # type: ignore[arg-type]
    target = subqueries[step["subquery_index"]]
    updates: list[Subquery] = [
        {
            **target,
            "status": "answerable" if answerable else "not answerable",
            "answer": answer if answerable else target["answer"],
        }
    ]
    others = [s for s in unresolved(subqueries) if s["index"] != step["subquery_index"]]
    if not others:
        return updates
    top = step["components"][0]["id"]
    with meter.timed("embedding"):
        vectors = index.embed_queries([s["text"] for s in others])
    for subquery, vector in zip(others, vectors, strict=True):
        scores = best_per_parent(index, vector, [top], "subcomponent", meter)
        score = scores.get(top, (-1.0, ""))[0]
        if score >= context.tuning.success_score + context.tuning.also_answers_margin:
            updates.append({**subquery, "status": "answerable", "answer": answer, "found": top})
    return updates


def judge_with_llm(
    caller: StructuredCaller,
    index: CorpusIndex,
    question: str,
    subqueries: list[Subquery],
    step: StepRecord,
    context: FiFContext,
    meter: CostMeter,
) -> Verdict:
    """Ask the chat model whether the step answered its subquery and which others it answers."""
    ids = [c["id"] for c in step["components"]]
    listing = "\n".join(
        f"{s['index'] + 1}. [{s['status']}] {s['text']}"
        + (f" -> {s['answer']}" if s["answer"] else "")
        for s in subqueries
    )
    user = EVALUATOR_USER.format(
        question=question,
        subquery=step["subquery"],
        candidates=numbered(index.graph, ids) or "(none)",
        subqueries=listing,
    )

    def check(parsed: Evaluation) -> None:
        bad = [u.index for u in parsed.updated_subtasks if not 1 <= u.index <= len(subqueries)]
        if bad:
            raise ValueError(f"subtask indices {bad} do not exist; use 1..{len(subqueries)}")

    parsed = caller.call(
        Evaluation, EVALUATOR_SYSTEM, with_images(user, index.graph, ids, context), meter, check
    )
    answerable = parsed.status == "answerable" and bool(ids)
    target = subqueries[step["subquery_index"]]
    # An empty hop answers nothing, whatever the model says: the plan must agree with history.
    status: SubqueryStatus = "answerable" if answerable else "not answerable"
    updates: list[Subquery] = [{**target, "status": status}]
    for item in parsed.updated_subtasks if ids else []:
        updates.append(
            {**subqueries[item.index - 1], "status": "answerable", "answer": item.answer}
        )
    return Verdict(answerable, answerable, f"LLM judged {parsed.status}", updates)
