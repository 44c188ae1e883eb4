"""A chain of bridges on a link-less corpus: a three-page question, as MuSiQue asks them.

The question names only the novel. The novel's page names its author, the author's page
names her university, and only that page says when the university was founded. Other
universities' pages say "founded" too, and one "attended", so no search for the
question's words alone picks the right one: the run must walk novel -> author ->
university, one bridge per page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_runs import build_pages, final_state, paragraph_page

from nodes.fif.bridge import candidate_entities, evidence_node
from state.fif_context import FiFContext
from state.tuning import FiFTuning
from tools.corpus_index import open_index
from tools.cost import CostMeter

QUESTION = "When was the university founded that the author of The Lighthouse Keeper attended?"
CHAIN = ["novel::p0", "ellison::p0", "kestrel::p0"]


PAGES = [
    (
        "novel",
        "The Lighthouse Keeper",
        "The Lighthouse Keeper is a 1952 novel. "
        "The author of The Lighthouse Keeper is Mara Ellison.",
    ),
    (
        "ellison",
        "Mara Ellison",
        "Mara Ellison was a novelist. As a young woman she attended Kestrel University.",
    ),
    ("kestrel", "Kestrel University", "Kestrel University was founded in 1871 by sailors."),
    ("harlow", "Harlow University", "Harlow University was founded in 1902 by a bishop."),
    ("mere", "Mere University", "Mere University was founded in 1950 on an old airfield."),
    ("ashby", "Ashby College", "Ashby College was founded in 1890; many authors attended it."),
    ("tide", "Tide Road", "Tide Road is a 1960 novel about a ferry crossing."),
]
DOCUMENTS = [paragraph_page(*page) for page in PAGES]


@pytest.fixture(scope="module")
def chain_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the corpus with hash:64 vectors; it has no hyperlinks, so mention edges are on."""
    folder, index_dir = (tmp_path_factory.mktemp(n) for n in ("chain", "chain_index"))
    return build_pages(folder, index_dir, DOCUMENTS)


def _run(index_dir: Path, bridges: int) -> dict:
    context = FiFContext(
        index_dir=str(index_dir),
        top_k=3,
        docs_per_hop=1,  # each hop keeps its best page: the chain is walked, never guessed
        components_per_hop=1,
        tuning=FiFTuning(bridge_hops=bridges),
    )
    return final_state(QUESTION, context)


def test_each_bridge_reads_the_next_entity_from_the_page_the_last_one_found(
    chain_index: Path,
) -> None:
    final = _run(chain_index, FiFTuning().bridge_hops)
    bridges = [s["text"] for s in final["subqueries"] if s["origin"] == "bridge"]
    entities = [text.split()[:2] for text in bridges[:2]]
    assert entities == [["Mara", "Ellison"], ["Kestrel", "University"]]
    assert [r["component_id"] for r in final["ranking"]] == CHAIN


def test_one_bridge_stops_a_page_short(chain_index: Path) -> None:
    final = _run(chain_index, 1)
    assert [s["origin"] for s in final["subqueries"]].count("bridge") == 1
    assert "kestrel::p0" not in [r["component_id"] for r in final["ranking"]]


def test_a_sentence_naming_a_page_already_walked_gives_no_bridge(chain_index: Path) -> None:
    index = open_index(chain_index)
    question = "Which university did the novelist attend?"
    sentence = next(
        node
        for node in index.graph.children("novel::p0")
        if "Mara Ellison" in index.graph.node(node).text
    )
    assert [e.text for e in candidate_entities(index, question, sentence)] == ["Mara Ellison"]
    assert candidate_entities(index, question, sentence, visited={"ellison"}) == []


def test_a_sentence_evidence_is_one_that_links_on(chain_index: Path) -> None:
    """The sentence matching the question best names no page; the one naming the author does."""
    index = open_index(chain_index)
    question = "Which university did the author of the 1952 novel attend?"
    node = evidence_node(index, question, "novel::p0", 0.2, CostMeter())
    assert "Mara Ellison" in index.graph.node(node).text
    # once her page was walked through, no sentence of the novel's page links on: any will do
    assert evidence_node(index, question, "novel::p0", 0.2, CostMeter(), visited={"ellison"})
