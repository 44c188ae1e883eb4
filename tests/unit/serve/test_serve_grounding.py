"""An answer cites the ranked components holding it, or says it was not found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serve.grounding import grounded
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE


@pytest.fixture(scope="module")
def graph(mini_index: Path) -> LayeredGraph:
    return LayeredGraph.load(mini_index / GRAPH_FILE)


def cards(graph: LayeredGraph) -> list[dict[str, Any]]:
    components = [c for doc in graph.documents() for c in graph.children(doc)][:6]
    return [
        {"component_id": c, "rank": n, "title": graph.title(graph.node(c).doc_id), "pages": None}
        for n, c in enumerate(components, start=1)
    ]


def name_in(graph: LayeredGraph, component_id: str) -> str:
    words = [w.strip(".,;()") for w in graph.node(component_id).text.split()]
    return next(w for w in words[1:] if w[:1].isupper() and len(w) > 3)


def test_an_answer_cites_the_components_holding_it(graph: LayeredGraph) -> None:
    found = cards(graph)
    answer = name_in(graph, found[2]["component_id"])
    result = grounded(graph, answer, found, [{"success": False}, {"success": True}])
    assert result["status"] == "supported"
    cited = [c["component_id"] for c in result["cited"]]
    assert found[2]["component_id"] in cited and len(cited) <= 3


def test_an_answer_after_only_failed_steps_is_not_found(graph: LayeredGraph) -> None:
    found = cards(graph)
    answer = name_in(graph, found[0]["component_id"])
    result = grounded(graph, answer, found, [{"success": False}, {"success": False}])
    assert result["status"] == "not_found" and "2 judged steps" in result["reason"]


def test_an_answer_no_component_holds_is_not_found_and_none_is_none(graph: LayeredGraph) -> None:
    found = cards(graph)
    result = grounded(graph, "Zanzibarian Quokka 1642", found, [])
    assert result["status"] == "not_found" and "names and numbers" in result["reason"]
    assert grounded(graph, None, found, [])["status"] == "none"
    assert grounded(graph, "  ", found, [])["status"] == "none"
