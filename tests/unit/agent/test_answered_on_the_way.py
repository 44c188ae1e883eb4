"""A subquery another subquery's step answers on the way records the component that did.

"Are Frozen and Escape from the Dark both animated features?" finds Escape from the
Dark's page in the question's own first hop; the entity's subquery is then answered
without a hop of its own, and the reranker keeps that page in the top k as it keeps the
top find of a subquery's own hop (`state.views.subquery_finds`).
"""

from __future__ import annotations

from pathlib import Path

from agent_records import step, subquery

from nodes.fif.judging import judge_offline
from state.fif_context import FiFContext
from tools.corpus_index import open_index
from tools.cost import CostMeter

MARIE = "marie_curie::p0"


def test_a_subquery_another_step_answers_records_the_component(mini_index: Path) -> None:
    index = open_index(str(mini_index))
    born = "She was born in Warsaw, in what was then the Kingdom of Poland"
    plan = [subquery(0), {**subquery(1), "text": born},
            {**subquery(2), "text": "yearly award of the Royal Swedish Academy"}]  # fmt: skip
    first = step(0, rung=1, components=[MARIE], score=0.9, subquery="Marie Curie radioactivity")
    verdict = judge_offline(index, "Marie Curie", plan, [], first, FiFContext(), CostMeter())
    answered = {s["index"]: s for s in verdict.updates}
    assert answered[1]["status"] == "answerable" and answered[1]["found"] == MARIE
    assert 2 not in answered and "found" not in answered[0]
