"""Entity bridges: the entity a hop's evidence names, and the next subquery formed from it.

A multi-hop question reaches its answer through an entity that the first hop finds and the
question does not name ("the home team that played Port Adelaide" -> the row's "West
Coast"). The evidence node of a successful step (the best row or sentence of its top
component, or of a near tie covering more of the question; re-chosen by cosine plus BM25
as link hops choose their linking row; a sentence only among those linking on) is read
for entities: a row's cells, or the titles of the documents a sentence links to or
mentions (hyperlinks or the mention edges `fif build` adds to link-less corpora).
Entities the question already names are no bridge, nor are those naming only pages a
step of the run already had on top: a chain of three or four pages walks on, not back
(the author's page names the novel the run came from). A cell whose column header
repeats the question's words ("Home team") comes first, then one that names a document
of the corpus, then the earliest. The next subquery is the entity plus the question's
words the evidence does not cover: what the hop is for. It runs as a global hop, so a
cell that names its page differently from the page's title ("West Coast" for "West Coast
Eagles", where no mention edge exists) still leads there, unless a link hop already found
the entity's page and that page leads nowhere new (`bridge_page_found`): then the
bridge is only a reranker facet.

Capitalised spans of sentences without a document were tried as entities too and
dropped: on a link-less tuning half they cost a question and gained none.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from nodes.core.lexical import content_words, covered_share, covered_terms
from nodes.core.question_rules import rule_weights
from nodes.fif.hop import residual_text, row_scores
from nodes.fif.plan_heuristics import named_documents
from state.fif_state import FiFState, Found, StepRecord
from state.tuning import FiFTuning
from state.views import top_pages
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.graph_nav import outgoing_links
from tools.layered_graph import LayeredGraph
from tools.sparse_index import terms

_LETTER = re.compile(r"[^\W\d_]")
MAX_ENTITY_WORDS = 8


@dataclass(frozen=True)
class Entity:
    """A possible bridge entity read from an evidence node."""

    text: str
    header_match: int
    """How many of the question's terms its table column header repeats (0 for sentences)."""
    pages: tuple[str, ...]
    """The documents it names: the evidence's links with it as title, or a title match."""
    position: int

    @property
    def names_document(self) -> bool:
        """Whether a document of the corpus has it as title (or the evidence links to one)."""
        return bool(self.pages)


@dataclass(frozen=True)
class Bridge:
    """The next subquery a step's evidence suggests, and the pages its entity names."""

    text: str
    pages: tuple[str, ...]


def row_cells(index: CorpusIndex, node: str) -> list[tuple[str, str]]:
    """Return (header, cell) pairs of a table row subcomponent ([] for any other node)."""
    view = index.graph.node(node)
    if view.kind != "row":
        return []
    table = index.graph.node(str(view.attrs["component_id"])).attrs
    rows, header = table.get("rows", []), table.get("header", [])
    order = int(view.attrs.get("order", -1))
    if not 0 <= order < len(rows):
        return []
    cells = [str(cell) for cell in rows[order]]
    return list(zip([str(h) for h in header] + [""] * len(cells), cells, strict=False))


def candidate_entities(
    index: CorpusIndex, question: str, node: str, visited: Collection[str] = ()
) -> list[Entity]:
    """Return the entities an evidence node names that neither the question nor `visited` does.

    `visited` are documents a step of the run already had on top: an entity naming only
    those would lead the chain back (a page about B mentions the A it was reached from).
    """
    graph = index.graph
    asked = terms(question)
    links = [doc for doc in outgoing_links(graph, node) if doc not in visited]
    linked = list(dict.fromkeys(graph.title(doc) for doc in links))
    cells = row_cells(index, node)
    if cells:
        spans = [(cell.strip(), terms(head) & asked) for head, cell in cells]
    else:
        spans = [(text, set()) for text in linked]
    entities: dict[str, Entity] = {}
    for position, (text, header) in enumerate(spans):
        words = text.split()
        if not _LETTER.search(text) or not words or len(words) > MAX_ENTITY_WORDS:
            continue
        if not terms(text) - asked or text in entities:  # named by the question already
            continue
        named = named_documents(index, text)
        if named and all(doc in visited for doc in named):
            continue
        titled = [doc for doc in links if graph.title(doc).lower() == text.lower()]
        pages = tuple(dict.fromkeys(titled + [doc for doc in named if doc not in visited]))
        entities[text] = Entity(text, len(header), pages, position)
    return list(entities.values())


def choose_entity(entities: Sequence[Entity]) -> Entity | None:
    """Return the likeliest bridge: header match, then a document's name, then the earliest."""
    if not entities:
        return None
    return min(entities, key=lambda e: (-e.header_match, not e.names_document, e.position))


def evidence_node(
    index: CorpusIndex,
    question: str,
    component: str,
    lexical_weight: float,
    meter: CostMeter,
    visited: Collection[str] = (),
    rules: Mapping[str, float] | None = None,
) -> str:
    """Return the row or sentence of a component that the question is about.

    Rows and sentences are scored by cosine plus `lexical_weight` times their BM25 among
    the component's parts, as link hops score linking rows (`nodes.fif.hop.row_scores`, with
    the question `rules`' weights, e.g. for the rows a superlative picks): the row repeating the
    question's rare values is the one its entity is read from. A sentence names entities
    only through its links, so only sentences linking to a page not `visited` compete
    (when there are any): "She was born in Young" over the sentence matching the question
    best ("... born 2 June 1961 ..."). A row's cells name entities without links.
    """
    graph = index.graph
    parts = graph.children(component)
    if parts and graph.node(component).kind != "table":
        onward = [p for p in parts if any(doc not in visited for doc in graph.links_from(p))]
        parts = onward or parts
    if not parts:
        return component
    with meter.timed("embedding"):
        vector = index.embed_query(question)
    score = row_scores(index, question, vector, parts, meter, lexical_weight, rules or {})
    return max(parts, key=lambda node: (score[node], node))


def evidence_component(
    index: CorpusIndex, question: str, components: Sequence[Found], tie_margin: float
) -> str:
    """Return the component a step's bridge is read from.

    Components scoring within `tie_margin` of the step's best are a near tie: the hop
    cannot tell which one the question is about. The one whose text covers most of the
    question's terms wins, then the better ranked ("the April 2010 cover of Teen Vogue":
    the Teen Vogue covers table, not a Vogue (US) one scoring a hair higher).
    """
    best = components[0]["score"]
    tied = [found["id"] for found in components if found["score"] >= best - tie_margin]
    share = {node: covered_share(question, covered_terms(index, [node])) for node in tied}
    return max(tied, key=lambda node: (share[node], -tied.index(node)))


def bridge_subquery(
    index: CorpusIndex,
    question: str,
    step: StepRecord,
    tuning: FiFTuning,
    meter: CostMeter,
    visited: Collection[str] = (),
) -> Bridge | None:
    """Return the next subquery from the bridge entity a step's evidence names, if any.

    The evidence is read from the step's top component, or from a near tie of it that
    covers more of the question (`evidence_component`, `tuning.bridge_tie_margin`).
    Entities that name only `visited` documents (see `candidate_entities`) are skipped.
    """
    if not step["components"]:
        return None
    top = evidence_component(index, question, step["components"], tuning.bridge_tie_margin)
    weight, rules = tuning.bridge_lexical_weight, rule_weights(tuning)
    node = evidence_node(index, question, top, weight, meter, visited, rules)
    entity = choose_entity(candidate_entities(index, question, node, visited))
    if entity is None:
        return None
    covered = covered_terms(index, [top], [entity.text])
    rest = residual_text(question, covered)  # the question itself when every word is covered
    if rest == question:
        rest = " ".join(content_words(question))
    return Bridge(f"{entity.text} {rest}".strip(), entity.pages)


def bridge_page_found(graph: LayeredGraph, state: FiFState, pages: Sequence[str]) -> bool:
    """Tell whether a hop already found one of a bridge's pages, and it leads nowhere new.

    Nowhere new: no part of the page links to a page no step had on top, so the bridge's
    own hop could neither find its page nor read a next entity there (`bridge_subquery`
    reads entities from links to pages no step had on top).
    """
    found = {candidate["doc_id"] for candidate in state.get("candidates", {}).values()}
    walked = top_pages(state.get("history", []))
    for page in (page for page in pages if page in found):
        onward = {doc for part in graph.children(page) for doc in graph.links_within(part)}
        if not onward - walked - {page}:
            return True
    return False
