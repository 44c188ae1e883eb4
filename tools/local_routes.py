"""Which decisions the in-process `local` model makes, and how long its reply to each may be.

The packaged local model (SmolLM2-135M) can pick from a short list or answer yes/no, but
the issue-12 trial showed what happens when it plans: fluent, ungrounded subqueries, a stop
with nothing retrieved, answers made up. So with `backend="local"` each decision goes
either to the model, with an output cap sized to its schema, or to its offline twin
(recorded as `decided_by="offline"` with the reason). A decision is named by the pydantic
schema its call asks for; one the table does not list goes to its offline twin.

A cap alone cuts a rambling reply mid-JSON (then repaired and retried, for nothing), so a
capped decision also sends a tighter JSON schema: short strings, few list items. The model
decodes under that schema's grammar, so its reply ends within the cap, and whatever it
writes still validates against the full pydantic schema.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LocalRoute:
    """Where one decision goes with the local backend, and the cap on the model's reply."""

    to_model: bool
    max_tokens: int | None = None
    """Output tokens of one reply; None keeps the caller's own cap and schema (the builder's,
    the judge's: writing they were asked for)."""
    why: str = ""
    max_items: int = 3
    """Items in any list of the reply's schema (with a cap)."""
    max_chars: int = 60
    """Characters in any free string of the reply's schema (with a cap)."""

    def reply_schema(self, json_schema: dict[str, Any]) -> dict[str, Any]:
        """Return the JSON schema the model decodes under: bounded when the reply is capped."""
        if self.max_tokens is None:
            return json_schema
        return bounded(json_schema, self.max_items, self.max_chars)


def model(max_tokens: int | None, why: str, max_items: int = 3) -> LocalRoute:
    """Route a decision to the local model with a reply cap."""
    return LocalRoute(True, max_tokens, why, max_items)


def twin(why: str) -> LocalRoute:
    """Route a decision to its offline twin."""
    return LocalRoute(False, None, why)


LOCAL_ROUTES: dict[str, LocalRoute] = {
    # FiF
    "PlannedTasks": twin(
        "decomposition and replanning: a small model writes ungrounded subqueries"
    ),
    "Decision": twin("the next action, strategy, anchor and subtask text at once"),
    "Selection": model(96, "choose the best few candidates of a numbered shortlist"),
    "Evaluation": model(96, "answerable or not: the yes/no alone, no subtask answers", 0),
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
    "SectionChoice": model(96, "choose sections from a list of ids"),
    "ExtractionReply": twin("extracting findings with provenance"),
    "SynthesisReply": twin("a written answer or the next shopping list"),
    # ReAgent
    "SubQuestions": twin("decomposition"),
    "Assertions": twin("extracting assertions is long-form writing"),
    "Verification": model(
        240, "one of supported, unsupported or contradicts per assertion", max_items=5
    ),
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


def bounded(json_schema: dict[str, Any], max_items: int, max_chars: int) -> dict[str, Any]:
    """Return a copy of a JSON schema whose free strings and lists are kept short.

    Enums and constants stay as they are; a bound never goes below the schema's own minimum.
    """
    node = {key: _bounded_value(value, max_items, max_chars) for key, value in json_schema.items()}
    if node.get("type") == "string" and "enum" not in node and "const" not in node:
        node["maxLength"] = max(min(node.get("maxLength", max_chars), max_chars),
                                node.get("minLength", 0))  # fmt: skip
    if node.get("type") == "array":
        node["maxItems"] = max(min(node.get("maxItems", max_items), max_items),
                               node.get("minItems", 0))  # fmt: skip
    return node


def _bounded_value(value: Any, max_items: int, max_chars: int) -> Any:
    if isinstance(value, dict):
        return bounded(value, max_items, max_chars)
    if isinstance(value, list):
        return [_bounded_value(item, max_items, max_chars) for item in value]
    return value
