"""The shared assembly of every system's graph: wiring as the spec says, asking by registry name."""

from __future__ import annotations

import pytest

from graph_agent.assembly import INDEX_RETRY, asker, compile_system
from graph_agent.registry import SYSTEMS, replayable_systems
from tools.errors import ConfigError

RETRIED = {
    "fif": set(),
    "lilac": {"traverser"},
    "ircot": {"retriever"},
    "mmapg": {"retriever"},
    "reagent": {"retriever"},
    "extraction": {"extractor"},
}
"""The nodes whose index searches each graph retries on a dropped connection."""


@pytest.mark.parametrize("system", replayable_systems())
def test_every_graph_is_compiled_under_its_name_with_its_retried_nodes(system: str) -> None:
    graph = SYSTEMS[system].module().graph
    assert graph.name == system
    nodes = graph.builder.nodes
    retried = {name for name, node in nodes.items() if node.retry_policy is not None}
    assert retried == RETRIED[system]
    assert all(nodes[name].retry_policy is INDEX_RETRY for name in retried)


def test_an_unknown_system_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="known: fif"):
        asker("nope")
    with pytest.raises(ConfigError, match="unknown system 'nope'"):
        compile_system("nope", lambda: SYSTEMS["fif"].module().build_graph())
