"""One registry of systems: langgraph.json, the CLI, evals and serve all read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.systems import SYSTEMS as EVAL_SYSTEMS
from graph_agent.registry import SYSTEMS, get_system, variant_of
from state.settings import RunSettings
from tools.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]


def test_langgraph_json_serves_every_graph_system_of_the_registry() -> None:
    served = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))["graphs"]
    graphs = {name: spec for name, spec in SYSTEMS.items() if spec.replayable}
    assert set(served) == set(graphs)
    for name, spec in graphs.items():
        path = "./" + str(spec.graph_module).replace(".", "/") + ".py:graph"
        assert served[name] == path, name


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_each_system_has_its_own_settings_and_a_runnable_graph(name: str) -> None:
    spec = SYSTEMS[name]
    assert issubclass(spec.context_type, RunSettings)
    others = {s.context_type for s in SYSTEMS.values() if s.context_type is not RunSettings}
    assert not any(
        issubclass(spec.context_type, other) and other is not spec.context_type for other in others
    ), "no system inherits another's settings"
    if spec.replayable:
        assert callable(spec.ask()) and spec.compiled().name == name
        assert spec.history_key


def test_variants_set_fields_of_their_own_system() -> None:
    for spec in SYSTEMS.values():
        for variant, settings in spec.variants.items():
            assert variant.startswith(spec.name + "-")
            spec.context_type(**settings)  # every field exists and validates
            assert variant_of(variant) == (spec, settings)


def test_every_registered_system_and_variant_is_evaluable() -> None:
    names = {v for spec in SYSTEMS.values() for v in (spec.name, *spec.variants)}
    assert names <= set(EVAL_SYSTEMS)


def test_an_unknown_system_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="known: fif, lilac"):
        get_system("colbert")
    with pytest.raises(ConfigError, match="fif-no-planner"):
        variant_of("fif-no-plan")
