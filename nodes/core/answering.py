"""The offline-or-LLM answer every answering system shares, grounded in ranked components.

With a chat model the answer is generated from the components and must be supported by
the ones it cites; offline the extractive reader (nodes/core/span_reader.py) picks the
answer span (a phrase, a date, a number, a name or a table cell); only when it finds no
candidate is the answer the sentence or row that best matches the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nodes.core.guards import instruction_like, unsupported_answer
from nodes.core.prompts import ANSWERER_SYSTEM, ANSWERER_USER
from nodes.core.reasoning import Decided, decide, numbered, with_images
from nodes.core.schemas import Answer
from nodes.core.span_candidates import Evidence
from nodes.core.span_reader import read_answer
from state.settings import RunSettings
from tools.component_terms import full_text
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.layered_graph import LayeredGraph
from tools.llm_calls import LLMFailure, StructuredCaller
from tools.search import best_per_parent

OFFLINE_ANSWER_CHARS = 200


def answer_text(decided: Decided) -> str | None:
    """Return a decided answer as stripped text, None when empty."""
    return str(decided.value or "").strip() or None


def decide_answer(
    index: CorpusIndex,
    question: str,
    component_ids: Sequence[str],
    context: RunSettings,
    meter: CostMeter,
    state: Mapping[str, Any] | None = None,
) -> Decided:
    """Decide the answer (LLM or offline extract) and say who decided it."""
    if not component_ids:
        return Decided(None, "offline", "no components")
    ids = list(component_ids)
    reader = context.reader
    user = ANSWERER_USER.format(question=question, candidates=numbered(index.graph, ids))

    def with_llm(caller: StructuredCaller) -> str:
        reply = caller.call(
            Answer, ANSWERER_SYSTEM, with_images(user, index.graph, ids, context), meter
        )
        cited = [ids[i] for i in reply.sources if 0 <= i < len(ids)] or ids
        problem = unsupported_answer(reply.answer, [full_text(index.graph, node) for node in cited])
        if problem:  # the cited texts are known only here, so the check runs here
            raise LLMFailure(f"LLM proposal rejected: {problem}")
        return reply.answer

    return decide(
        state or {"question": question},
        context,
        meter,
        with_llm,
        lambda: (
            read_answer(question, evidence_for(index.graph, ids[: reader.read_components]), reader)
            or best_evidence(index, question, ids, meter)
        ),
    )


def best_evidence(
    index: CorpusIndex, question: str, component_ids: Sequence[str], meter: CostMeter
) -> str:
    """Return the sentence or row (or component text) that best matches the question.

    A sentence that reads as an instruction to the model (an injection) is never the answer.
    """
    with meter.timed("embedding"):
        vector = index.embed_query(question)
    best = best_per_parent(index, vector, list(component_ids), "subcomponent", meter)
    if not best:
        return index.graph.node(component_ids[0]).text[:OFFLINE_ANSWER_CHARS]
    texts = (
        " ".join(index.graph.node(node).text.split())
        for _, node in sorted(best.values(), reverse=True)
    )
    return next((t for t in texts if not instruction_like(t)), "")[:OFFLINE_ANSWER_CHARS]


def evidence_for(graph: LayeredGraph, component_ids: Sequence[str]) -> list[Evidence]:
    """Return the reader's view of ranked components: sentences, or a table's header and rows."""
    evidence = []
    for rank, component_id in enumerate(component_ids):
        node = graph.node(component_id)
        title = graph.title(node.doc_id)
        if node.attrs.get("rows"):
            header = tuple(str(cell) for cell in node.attrs.get("header", []))
            rows = tuple(tuple(str(cell) for cell in row) for row in node.attrs["rows"])
            evidence.append(Evidence(rank, title, header=header, rows=rows))
            continue
        children = [graph.node(child) for child in graph.children(component_id)]
        sentences = tuple(
            c.text for c in children if c.kind == "sentence" and not instruction_like(c.text)
        ) or tuple(t for t in (node.text,) if not instruction_like(t))
        evidence.append(Evidence(rank, title, sentences=sentences))
    return evidence
