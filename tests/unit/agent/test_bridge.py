"""Entity bridges on a tiny link-less corpus: the answer page is named only by a table cell.

The season table's row names the home team "Northport"; its page is titled "Northport
Rovers", so no hyperlink and no mention edge leads there. Only a subquery formed from
the cell's entity finds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent_records import subquery
from agent_runs import build_pages, final_state, paragraph_page

from nodes.core.question import analyze_question
from nodes.fif.bridge import bridge_subquery, candidate_entities, choose_entity, evidence_node
from nodes.fif.evaluator import bridge_of
from nodes.fif.plan_heuristics import compares_named_entities
from nodes.fif.rules import must_stop
from state.fif_context import FiFContext
from state.fif_state import FiFState, StepRecord, Subquery
from state.tuning import FiFTuning
from state.views import pending_bridge, spent_bridge, unresolved
from tools.corpus_index import open_index
from tools.cost import CostMeter

QUESTION = "The home team that played against Eastvale in the 2004 Harbour Cup was founded when?"
TABLE = "cup2004::table0"
ANSWER = "rovers::p0"


DOCUMENTS = [
    {
        "doc_id": "cup2004",
        "title": "2004 Harbour Cup",
        "components": [
            {
                "component_id": TABLE,
                "type": "table",
                "caption": "Results of the 2004 Harbour Cup",
                "table": {
                    "header": ["Home team", "Away team", "Venue"],
                    "rows": [
                        ["Northport", "Eastvale", "Pier Park"],
                        ["Westbay", "Southfield", "Cove Oval"],
                    ],
                },
            }
        ],
    },
    paragraph_page(
        "rovers", "Northport Rovers", "Northport Rovers are a rowing club, formed in 1887."
    ),
    paragraph_page(
        "eastvale", "Eastvale", "Eastvale is a village with a cricket ground and a mill."
    ),
    paragraph_page("pier", "Pier Park", "Pier Park is a stadium by the sea with seats for 9,000."),
    paragraph_page("westbay", "Westbay", "Westbay is a fishing port on the western shore."),
    paragraph_page("cove", "Cove Oval", "Cove Oval is an oval near the old lighthouse."),
]


@pytest.fixture(scope="module")
def linkless_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the link-less corpus with hash:64 vectors (mention edges on, as `fif build` does)."""
    folder, index_dir = (tmp_path_factory.mktemp(n) for n in ("linkless", "linkless_index"))
    return build_pages(folder, index_dir, DOCUMENTS)


def _step(components: list[str], doc_mode: str = "vector", **extra: object) -> StepRecord:
    record = {
        "step": 0,
        "subquery_index": 0,
        "subquery": QUESTION,
        "strategy": {"doc_mode": doc_mode, "comp_mode": "vector", "granularity": "document"},
        "anchor": None,
        "documents": [],
        "components": [
            {"id": c, "doc_id": c.split("::")[0], "kind": "x", "score": 0.9} for c in components
        ],  # fmt: skip
        "success": True,
        "answerable": True,
        "reason": "",
        "decided_by": "offline",
        "notes": [],
        "cost": {},
    }
    return {**record, **extra}  # type: ignore[typeddict-item]


def _subquery(index: int, origin: str = "initial", **extra: object) -> Subquery:
    record = {"index": index, "text": f"q{index}", "status": "answerable", "answer": None}
    return {**record, "origin": origin, **extra}  # type: ignore[typeddict-item]


def test_the_row_the_question_is_about_names_the_bridge(linkless_index: Path) -> None:
    index = open_index(linkless_index)
    row = evidence_node(index, QUESTION, TABLE, 0.2, CostMeter())
    assert index.graph.node(row).text.startswith("Home team: Northport")
    entities = candidate_entities(index, QUESTION, row)
    # the away team is named by the question; the home-team column repeats its words
    assert [e.text for e in entities] == ["Northport", "Pier Park"]
    assert choose_entity(entities).text == "Northport"  # type: ignore[union-attr]
    assert choose_entity([]) is None


def test_bridge_subquery_is_the_entity_plus_what_the_evidence_leaves(linkless_index: Path) -> None:
    index = open_index(linkless_index)
    bridge = bridge_subquery(index, QUESTION, _step([TABLE]), FiFTuning(), CostMeter())
    assert bridge is not None and bridge.text.startswith("Northport ")
    assert "founded" in bridge.text and "Eastvale" not in bridge.text
    assert bridge.pages == ()  # "Northport" is no page's title: only a search can find it
    assert bridge_subquery(index, QUESTION, _step([]), FiFTuning(), CostMeter()) is None


@pytest.mark.parametrize(
    ("subqueries", "history", "max_bridges", "expected"),
    [
        ([_subquery(0)], [_step([TABLE], bridge="Northport founded")], 1, "Northport founded"),
        ([_subquery(0)], [_step([TABLE], bridge="Northport founded")], 0, None),
        ([_subquery(0)], [_step([TABLE])], 1, None),  # the evidence named no entity
        (  # subquery 0 already spawned its bridge
            [_subquery(0), _subquery(1, "bridge", parent=0, text="Northport founded")],
            [_step([TABLE], bridge="Northport founded")],
            2,
            None,
        ),
    ],
)
def test_pending_bridge(subqueries, history, max_bridges, expected) -> None:
    state: FiFState = {"question": QUESTION, "subqueries": subqueries, "history": history}
    found = pending_bridge(state, max_bridges)
    assert (found[1] if found else None) == expected


def test_a_bridge_keeps_the_run_going_and_gets_one_hop() -> None:
    history = [_step([TABLE], bridge="Northport founded")]
    state: FiFState = {"question": QUESTION, "subqueries": [_subquery(0)], "history": history}
    assert not must_stop(state, FiFContext())
    assert must_stop(state, FiFContext(tuning=FiFTuning(bridge_hops=0)))
    bridge = _subquery(1, "bridge", parent=0, status="not answerable")
    assert unresolved([_subquery(0), bridge]) == [bridge]  # a bridge replaces nothing
    assert not spent_bridge(bridge, history)
    assert spent_bridge(bridge, [*history, _step([ANSWER], subquery_index=1)])


def _run(index_dir: Path, bridges: int) -> dict:
    context = FiFContext(
        index_dir=str(index_dir),
        top_k=3,
        docs_per_hop=2,
        components_per_hop=2,
        tuning=FiFTuning(bridge_hops=bridges),
    )
    return final_state(QUESTION, context)


def test_the_answer_page_is_reached_only_through_the_bridge(linkless_index: Path) -> None:
    without = _run(linkless_index, 0)
    assert ANSWER not in without["candidates"]
    final = _run(linkless_index, 1)
    bridges = [s for s in final["subqueries"] if s["origin"] == "bridge"]
    assert [s["text"].split()[0] for s in bridges] == ["Northport"]
    assert ANSWER in final["candidates"]
    assert ANSWER in [r["component_id"] for r in final["ranking"]]
    assert len(final["history"]) == len(without["history"]) + 1  # one global hop, no ladder


def test_the_llm_orchestrator_is_shown_the_bridge_and_may_take_it() -> None:
    from nodes.fif.orchestrator import _target
    from nodes.fif.prompts import ORCHESTRATOR_USER

    assert "{bridge}" in ORCHESTRATOR_USER
    state: FiFState = {"question": QUESTION, "subqueries": [_subquery(0)], "history": []}
    pending = (_step([TABLE]), "Northport founded")
    taken, [new] = _target(state, "northport founded ", pending)
    assert taken == new and new["origin"] == "bridge" and new["parent"] == 0
    other, [rewrite] = _target(state, "Eastvale venue", pending)
    assert rewrite["origin"] == "rewrite"


def test_an_entity_naming_a_page_already_on_top_is_no_bridge(linkless_index: Path) -> None:
    index = open_index(linkless_index)
    row = evidence_node(index, QUESTION, TABLE, 0.2, CostMeter())
    entities = candidate_entities(index, QUESTION, row, visited={"pier"})
    assert [e.text for e in entities] == ["Northport"]  # "Pier Park" would lead back
    # "Northport" names no page by its title, so no visited page can rule it out
    assert [e.text for e in candidate_entities(index, QUESTION, row, visited={"rovers"})] == [
        "Northport",
        "Pier Park",
    ]


@pytest.mark.parametrize(
    ("table_score", "margin", "expected"),
    [(0.88, 0.03, "Northport"), (0.88, 0.0, None), (0.8, 0.03, None)],
    ids=["near-tie", "no-margin", "clear-lead"],
)
def test_a_near_tie_covering_more_of_the_question_is_read_for_the_bridge(
    linkless_index: Path, table_score: float, margin: float, expected: str | None
) -> None:
    """Eastvale's page scores a hair higher but names no entity; the table covers more."""
    index = open_index(linkless_index)
    step = _step(["eastvale::p0", TABLE])
    step["components"][1]["score"] = table_score
    tuning = FiFTuning(bridge_tie_margin=margin)
    bridge = bridge_subquery(index, QUESTION, step, tuning, CostMeter())
    assert (bridge.text.split()[0] if bridge else None) == expected


@pytest.mark.parametrize(
    ("question", "entities", "expected"),
    [
        ("Are Northport Rovers and Eastvale both rowing clubs?", 2, True),
        ("Which was founded first, Northport Rovers or Eastvale?", 2, True),
        ("Are Northport Rovers and Eastvale both rowing clubs?", 1, False),  # one entity
        ("Who founded the club that beat Northport Rovers and Eastvale?", 2, False),  # open
    ],
    ids=["both", "choice", "one-entity", "open-question"],
)
def test_a_question_comparing_named_entities(question: str, entities: int, expected: bool) -> None:
    plan = [subquery(i) for i in range(entities + 1)]
    assert compares_named_entities(analyze_question(question), plan) is expected


def test_a_comparison_reads_no_bridge_unless_asked_to(linkless_index: Path) -> None:
    """Its answer is on the compared entities' own pages, not on pages they mention."""
    index, step = open_index(linkless_index), _step([TABLE])
    off, on = FiFContext(), FiFContext(tuning=FiFTuning(comparison_bridges=True))
    question = "Did the home team that played Eastvale in the 2004 Harbour Cup and Westbay win?"
    compared = {"question": question, "subqueries": [subquery(i) for i in range(3)]}
    single = {"question": question, "subqueries": [subquery(0)]}
    assert bridge_of(index, compared, step, True, off, CostMeter()) is None
    assert bridge_of(index, compared, step, True, on, CostMeter()) is not None
    assert bridge_of(index, single, step, True, off, CostMeter()) is not None
