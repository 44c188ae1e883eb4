"""Which decisions the in-process `local` model makes, and how long its reply to each may be.

The packaged local model (SmolLM2-135M) can pick from a short list or answer yes/no, but
the issue-12 trial showed what happens when it plans: fluent, ungrounded subqueries, a stop
with nothing retrieved, answers made up. So with `backend="local"` each decision goes
either to the model, with an output cap sized to its schema, or to its offline twin
(recorded as `decided_by="offline"` with the reason). A decision is named by the pydantic
schema its call asks for; one the table does not list goes to its offline twin.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalRoute:
    """Where one decision goes with the local backend, and the cap on the model's reply."""

    to_model: bool
    max_tokens: int | None = None
    """Output tokens of one reply; None keeps the caller's own cap (the builder's, the judge's)."""
    why: str = ""


def model(max_tokens: int | None, why: str) -> LocalRoute:
    """Route a decision to the local model with a reply cap."""
    return LocalRoute(True, max_tokens, why)


def twin(why: str) -> LocalRoute:
    """Route a decision to its offline twin."""
    return LocalRoute(False, None, why)


LOCAL_ROUTES: dict[str, LocalRoute] = {
    # FiF
    "Plan": twin("decomposition and replanning: a small model writes ungrounded subqueries"),
    "Decision": twin("the next action, strategy, anchor and subtask text at once"),
    "Selection": model(160, "choose candidates from a numbered shortlist"),
    "Evaluation": model(96, "answerable or not, with the span it read"),
    "Reranking": twin("a full ordering of the top-k; the chain reranker does it better"),
    "Answer": twin("a written answer: the offline reader quotes the evidence"),
    # LILaC
    "Decomposition": twin("decomposition into modality-labelled subqueries"),
    "SubqueryList": twin("decomposition"),
    "ModalityChoice": model(16, "one of text, table or image"),
    # IRCoT
    "NextSentence": twin("a chain-of-thought sentence is long-form writing"),
    # MMAPG
    "OverallPlanReply": twin("planning"),
    "PlannerReply": twin("planning graph nodes"),
    "SplitReply": twin("rewriting an instruction into parts"),
    "ExaminationReply": model(192, "which numbered candidates are relevant"),
    "AnswerReply": twin("a written answer"),
    "TripletsReply": twin("extracting triplets is long-form writing"),
    # Iterative extraction loop
    "SectionChoice": model(48, "choose sections from a list of ids"),
    "ExtractionReply": twin("extracting findings with provenance"),
    "SynthesisReply": twin("a written answer or the next shopping list"),
    # ReAgent
    "SubQuestions": twin("decomposition"),
    "Assertions": twin("extracting assertions is long-form writing"),
    "Verification": model(160, "one of supported, unsupported or contradicts per assertion"),
    # Build and evaluation time: asked for explicitly (`--summaries local`, `--triplets
    # --backend local`, `--judge-backend local`); the caller sets its own cap.
    "DocumentSummary": model(None, "a summary the builder was asked to write locally"),
    "TripletReply": model(None, "triplets the builder was asked to extract locally"),
    "JudgeVerdict": model(None, "correct or not, with one sentence"),
}
"""Decision (the schema a call asks for) → where it goes with the local backend."""

UNLISTED = twin("not in tools.local_routes.LOCAL_ROUTES")


def local_route(decision: str) -> LocalRoute:
    """Return where a decision goes with the local backend; an unlisted one goes offline."""
    route = LOCAL_ROUTES.get(decision)
    if route is None:
        logger.warning("decision %s is not in LOCAL_ROUTES; its offline twin decides", decision)
        return UNLISTED
    return route
