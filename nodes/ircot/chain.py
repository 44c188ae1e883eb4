"""IRCoT's chain of thought without a model: the next sentence is taken from the evidence.

The offline twin of the reasoning step (Trivedi et al. 2023, §3 "reason"). A model writes
the sentence that best extends the chain; without one we pick it from the corpus: among
the sentences (subcomponents: sentences, table row segments, image regions) of the
evidence pool, the same evidence the model's prompt shows, not already in the chain, the
one most similar to the question, with a bonus for a *bridge* sentence, one that points
(by a hyperlink or title mention of its own, or by naming a document its component links
to) to a document the pool does not cover yet. That sentence is the next query, so the
chain moves toward the next hop's document. Scoring against the question rather than the
last sentence keeps the chain on topic: a sentence of a component retrieved by an
off-topic query is not taken just because it is new. The twin never states an answer, so
offline chains stop by the other rules (nothing new retrieved, no unused sentence, the
step limit).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import component_of, outgoing_links
from tools.layered_graph import LayeredGraph
from tools.mentions import mentioned_docs, title_index
from tools.search import similarities

BRIDGE_BONUS = 0.1
"""Added to a bridge sentence's cosine to the question. In traces on Wikipedia passages
with the packaged MiniLM embedder, sentences on the question's topic scored about 0.5-0.7
and off-topic ones about 0.2, so the bonus reorders sentences about equally on topic without
lifting an off-topic one over an on-topic one. Set before the first evaluation run and not
tuned since."""

_ANSWER = re.compile(r"\banswer is\s*:?\s*(?P<answer>.+?)\s*[.!]?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Thought:
    """One reasoning step's outcome: the sentence (None if none was found) and an answer."""

    sentence: str | None
    answer: str | None = None
    source: str | None = None
    """The subcomponent the offline twin took the sentence from."""
    reason: str = ""


def answer_in(sentence: str) -> str | None:
    """Return the answer a sentence states ("... So the answer is X."), or None."""
    match = _ANSWER.search(sentence)
    if match is None:
        return None
    answer = match.group("answer").strip(" \"'.!")
    return answer or None


def linked_docs(graph: LayeredGraph, subcomponent: str) -> list[str]:
    """Return the documents a sentence points to.

    Its own `links_to` edges (a hyperlink anchored in it, a linked table cell, a title
    mention), plus the documents its component links to whose title it mentions: corpora
    whose links are known per paragraph only still tell which sentence names the target.
    """
    docs = outgoing_links(graph, subcomponent)
    inherited = [
        d for d in outgoing_links(graph, component_of(graph, subcomponent)) if d not in docs
    ]
    if inherited:
        titles = title_index((doc, graph.title(doc)) for doc in inherited)
        docs = [*docs, *mentioned_docs(graph.node(subcomponent).text, titles)]
    return docs


def bridges(graph: LayeredGraph, subcomponent: str, covered_docs: Collection[str]) -> list[str]:
    """Return the documents a sentence points to that neither it nor the pool covers."""
    own = graph.node(subcomponent).doc_id
    return [d for d in linked_docs(graph, subcomponent) if d != own and d not in covered_docs]


def offline_thought(
    index: CorpusIndex,
    question: str,
    components: Sequence[str],
    used: Collection[str],
    covered_docs: Collection[str],
    meter: CostMeter,
) -> Thought:
    """Pick the next chain sentence from the sentences of the evidence pool.

    Args:
        index: The opened corpus index.
        question: The original question Q (sentences are scored against it).
        components: The evidence pool's components, first-retrieved first (ties go to the
            earlier one).
        used: Subcomponents already in the chain (never picked again).
        covered_docs: Documents of the evidence pool (a link elsewhere is a bridge).
        meter: Receives embedding and vector time.
    """
    graph = index.graph
    candidates = [
        sub
        for component in components
        for sub in graph.children(component)
        if sub not in used and graph.node(sub).text.strip()
    ]
    if not candidates:
        return Thought(None, reason="no unused sentence in the evidence pool")
    scores = similarities(index, question, "subcomponent", candidates, meter)
    order = {sub: position for position, sub in enumerate(candidates)}
    ranked = sorted(scores, key=lambda sub: (-scores[sub], order[sub]))
    best: tuple[float, str, list[str]] | None = None
    for sub in ranked:  # ties go to the earlier retrieval, then the earlier sentence
        if best is not None and scores[sub] + BRIDGE_BONUS <= best[0]:
            break  # no later sentence can win, even as a bridge (spares the link lookups)
        linked = bridges(graph, sub, covered_docs)
        value = scores[sub] + (BRIDGE_BONUS if linked else 0.0)
        if best is None or value > best[0]:
            best = (value, sub, linked)
    if best is None:
        return Thought(None, reason="the pool's sentences have no vectors")
    value, sub, linked = best
    why = f"{sub}: {value:.3f} against the question"
    if linked:
        why += f" (bridge to {', '.join(linked[:3])})"
    return Thought(" ".join(graph.node(sub).text.split()), None, sub, why)
