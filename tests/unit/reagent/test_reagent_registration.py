"""ReAgent is registered where users find it: langgraph.json and the eval systems."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from evals.systems import RunConfig, make_system
from state.reagent_state import ReAgentContext

ROOT = Path(__file__).resolve().parents[3]


def test_langgraph_json_serves_the_compiled_reagent_graph():
    spec = json.loads((ROOT / "langgraph.json").read_text())["graphs"]["reagent"]
    path, name = spec.split(":")
    module = importlib.import_module(path.removeprefix("./").removesuffix(".py").replace("/", "."))
    served = getattr(module, name)
    assert served.name == "reagent"
    assert served.checkpointer is None  # the server supplies its own


@pytest.mark.parametrize(
    ("system", "field", "value"),
    [
        ("reagent", "no_backtracking", False),
        ("reagent-no-backtracking", "no_backtracking", True),
        ("reagent-local-only", "global_backtracking", False),
        ("reagent-depth-1", "backtrack_depth", 1),
        ("reagent-1-subquestion", "max_subqueries", 1),
        ("reagent-5-subquestions", "max_subqueries", 5),
        ("reagent", "max_subqueries", 3),
    ],
)
def test_each_eval_system_sets_its_ablation_switch(reagent_index_dir, system, field, value):
    built = make_system(system, RunConfig(index_dir=reagent_index_dir, top_k=7))
    context = built.context  # type: ignore[attr-defined]
    assert isinstance(context, ReAgentContext)
    assert getattr(context, field) == value
    assert context.top_k == 7
    assert built.name == system
