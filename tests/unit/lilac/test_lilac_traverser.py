"""The traverser on a tiny hash-embedded index: seeds, expansion, dummy edges, beam width."""

from __future__ import annotations

import numpy as np
import pytest
from langgraph.runtime import Runtime
from lilac_bundle import CUP_PARAGRAPH, GRANITE, LAKESIDE, MILLTOWN, RIVER_OARS, TABLE

from nodes.lilac.beam import BeamSettings, beam_search
from nodes.lilac.expansion import adjacent, expand, seed_components
from nodes.lilac.late_interaction import Edge
from nodes.lilac.traverser import embedding_text, traverser
from state.lilac_state import LilacContext
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.late_interaction import component_profiles

QUESTION = "Which club won the Sparrow Cup in 2002 , and when was that club founded ?"
SUBQUERIES = [
    {"index": 0, "text": "Sparrow Cup 2002 winner Tom Reed club", "modality": "table"},
    {"index": 1, "text": "club founded in 1920", "modality": "text"},
]


@pytest.fixture
def index(lilac_index_dir):
    return open_index(lilac_index_dir)


def _subquery_matrix(index, texts):
    return np.stack(index.embed_queries(texts))


def test_a_table_reaches_its_own_document_and_the_documents_its_rows_link_to(index):
    reached = dict(adjacent(index.graph, TABLE, follow_backlinks=False, cap=100))
    assert reached == {CUP_PARAGRAPH: "intra", LAKESIDE: "inter", RIVER_OARS: "inter"}


def test_backlinks_reach_the_components_that_link_to_a_document(index):
    assert dict(adjacent(index.graph, LAKESIDE, follow_backlinks=False, cap=100)) == {}
    assert dict(adjacent(index.graph, LAKESIDE, follow_backlinks=True, cap=100)) == {TABLE: "inter"}
    assert len(adjacent(index.graph, TABLE, follow_backlinks=False, cap=1)) == 1


def test_an_isolated_component_gets_a_dummy_edge(index):
    assert expand(index.graph, [GRANITE], follow_backlinks=True, cap=100) == [
        Edge(GRANITE, None, "dummy")
    ]
    edges = expand(index.graph, [RIVER_OARS], follow_backlinks=False, cap=100)
    assert edges == [Edge(RIVER_OARS, MILLTOWN, "inter")]


def test_profiles_use_the_subcomponents_and_optionally_the_component_itself(index):
    queries = _subquery_matrix(index, [s["text"] for s in SUBQUERIES])
    profiles = component_profiles(index, [TABLE, GRANITE], queries, CostMeter())
    assert profiles.components == [TABLE, GRANITE]
    owned = profiles.row_ids[profiles.starts[0] : profiles.ends[0]]
    assert owned == [f"{TABLE}::r0", f"{TABLE}::r1"]
    assert profiles.evidence([TABLE])[0] == f"{TABLE}::r1"
    with_self = component_profiles(index, [TABLE], queries, CostMeter(), include_component=True)
    assert with_self.row_ids == [f"{TABLE}::r0", f"{TABLE}::r1", TABLE]


@pytest.mark.parametrize("width", [1, 2, 3])
def test_the_seed_set_and_the_beam_never_exceed_the_beam_width(index, width):
    meter = CostMeter()
    question = index.embed_query(QUESTION)
    seeds = seed_components(index, question, width, "both", meter)
    assert 1 <= len(seeds) <= width
    assert [s for _, s in seeds] == sorted((s for _, s in seeds), reverse=True)
    queries = _subquery_matrix(index, [s["text"] for s in SUBQUERIES])
    result = beam_search(index, question, queries, BeamSettings(width=width, top_k=6), meter)
    assert len(result.beam) <= width
    assert meter.vector_ms > 0


def test_the_table_row_and_the_linked_passage_form_the_best_edge(index):
    queries = _subquery_matrix(index, [s["text"] for s in SUBQUERIES])
    question = index.embed_query(QUESTION)
    result = beam_search(index, question, queries, BeamSettings(width=10, top_k=4), CostMeter())
    best = result.beam[0]
    assert set(best.components) == {TABLE, RIVER_OARS}
    assert best.kind == "inter"
    assert not best.one_sided
    assert {c for c, _ in result.ranking[:2]} == {TABLE, RIVER_OARS}
    row, passage = result.profiles.evidence(best.components)
    assert row == f"{TABLE}::r1"
    assert passage == f"{RIVER_OARS}::s1"


def test_zero_iterations_rank_the_seeds_by_their_own_late_interaction_score(index):
    queries = _subquery_matrix(index, [s["text"] for s in SUBQUERIES])
    question = index.embed_query(QUESTION)
    settings = BeamSettings(width=10, iterations=0, top_k=3)
    result = beam_search(index, question, queries, settings, CostMeter())
    assert {unit.kind for unit in result.beam} == {"seed"}
    assert result.iterations == []
    assert len(result.ranking) == 3


def test_the_traverser_node_returns_ranking_beam_trace_and_cost(offline_context):
    state = {"question": QUESTION, "subqueries": SUBQUERIES}
    update = traverser(state, Runtime(context=offline_context))
    assert len(update["ranking"]) == offline_context.top_k
    assert {r["component_id"] for r in update["ranking"][:2]} == {TABLE, RIVER_OARS}
    assert update["ranking"][0]["type"] in ("table", "paragraph")
    top = update["beam"][0]
    assert set(top["components"]) == {TABLE, RIVER_OARS}
    assert len(top["evidence"]) == len(SUBQUERIES)
    (step,) = update["trace"]
    assert step["node"] == "traverser"
    assert step["detail"]["iterations"][0]["edges"] > 0
    assert {"vector_ms", "embedding_ms", "llm_calls"} <= set(update["cost"])


def test_the_traverser_uses_the_question_when_there_are_no_subqueries(lilac_index_dir):
    context = LilacContext(index_dir=lilac_index_dir, top_k=2, beam_width=4)
    update = traverser({"question": "Granite Peak snowy summit"}, Runtime(context=context))
    assert update["ranking"][0]["component_id"] == GRANITE
    assert update["beam"][0]["kind"] == "dummy"


def test_a_modality_hint_prefixes_the_subquery_only_when_asked():
    subquery = {"index": 0, "text": "club founded", "modality": "table"}
    assert embedding_text(subquery, hint=False) == "club founded"
    assert embedding_text(subquery, hint=True) == "table row: club founded"


@pytest.mark.parametrize(
    ("field", "value"),
    [("beam_width", 0), ("iterations", -1), ("seed_granularity", "document"), ("bogus", 1)],
)
def test_lilac_context_rejects_bad_settings(field, value):
    with pytest.raises(ValueError):
        LilacContext(**{field: value})
