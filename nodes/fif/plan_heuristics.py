"""The offline planner: decompose by the entities a question names, replan from what is missing.

Decomposition looks up document titles mentioned in the question (the same title index
that makes implicit links). Two or more named entities joined by a comparison or
coordination cue become one subquery each, carrying the question's remaining words;
otherwise the question stays one subquery ("no unnecessary splitting"). Inside a chosen
filing, a question naming a financial metric also asks for each statement line the metric
is computed from ("inventory turnover" -> cost of sales, inventories;
`tools.metric_terms.lines_in_filing`): no filing prints the ratio, and each line is a
table row of its own statement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from nodes.core.lexical import content_words
from nodes.core.question import QuestionAnalysis
from state.fif_state import StepRecord, Subquery
from state.views import best_success, successes
from tools.corpus_index import CorpusIndex
from tools.graph_nav import neighbors
from tools.layered_graph import LayeredGraph
from tools.mentions import mentioned_docs, title_index
from tools.metric_terms import lines_in_filing

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")
_CUES = re.compile(
    r"\b(or|and|both|either|than|compare|same|which|who|whose|more|less)\b", re.IGNORECASE
)


@lru_cache(maxsize=4)
def _titles(graph: LayeredGraph) -> dict[tuple[str, ...], list[str]]:
    return title_index((doc, graph.title(doc)) for doc in graph.nodes_at(0))


def named_documents(index: CorpusIndex, text: str) -> list[str]:
    """Return the documents whose titles a text names, in order of mention."""
    return mentioned_docs(text, _titles(index.graph))


def named_entities(index: CorpusIndex, question: str) -> list[str]:
    """Return the titles of documents the question names, in order of mention."""
    graph = index.graph
    return list(dict.fromkeys(graph.title(doc) for doc in named_documents(index, question)))


def decompose(index: CorpusIndex, question: str, max_subqueries: int) -> list[str]:
    """Split a question naming several entities into one subquery per entity.

    In a scoped index, a question naming a metric gets one subquery per input line instead.
    """
    inputs = lines_in_filing(index, question)
    if inputs:
        return [question, *inputs][:max_subqueries]
    entities = named_entities(index, question)
    base = [re.sub(r"\s*\([^)]*\)$", "", title) for title in entities]
    distinct = [e for e in base if not any(e != other and e in other for other in base)]
    if len(distinct) < 2 or not _CUES.search(question):
        return [question]
    entity_words = {w.lower() for e in distinct for w in _WORD.findall(e)}
    rest = [w for w in content_words(question) if w not in entity_words]
    tail = " ".join(rest)
    tasks = [f"{entity} {tail}".strip() for entity in distinct[: max_subqueries - 1]]
    return [question, *tasks][:max_subqueries]


def compares_named_entities(question: QuestionAnalysis, subqueries: Sequence[Subquery]) -> bool:
    """Tell whether a question compares entities it names ("Are A and B both ...?").

    Two or more subqueries of the initial plan besides the question (one per named
    entity, `decompose`), and a question asking yes or no, or to choose ("A or B?").
    Its answer lies on the named entities' own pages, not on pages they lead to.
    """
    entities = [s for s in subqueries if s["origin"] == "initial" and s["index"] > 0]
    return len(entities) >= 2 and question.compares


def replan(index: CorpusIndex, question: str, history: Sequence[StepRecord]) -> list[str]:
    """Propose 1–2 new subqueries: the question's uncovered words, and the linked entities."""
    graph = index.graph
    covered: set[str] = set()
    for step in successes(history):
        for found in step["components"]:
            covered.update(content_words(graph.node(found["id"]).text))
            covered.update(content_words(graph.title(found["doc_id"])))
    missing = [w for w in content_words(question) if w not in covered]
    best = best_success(history, set())
    tasks = []
    if best is not None:
        top = best["components"][0]
        linked = neighbors(graph, [top["doc_id"]], [top["id"], str(top.get("evidence", top["id"]))])
        titles = [graph.title(doc) for doc in list(linked)[:2]]
        anchor_title = graph.title(top["doc_id"])
        if missing:
            tasks.append(f"{' '.join(missing)} {' '.join(titles) or anchor_title}".strip())
        for title in titles[: 2 - len(tasks)]:
            tasks.append(f"{title} {' '.join(missing) or question}".strip())
    elif missing:
        tasks.append(" ".join(missing))
    return tasks[:2] or [question]
