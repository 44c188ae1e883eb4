"""Result cards and component pages of a PDF: zero-indexed pages, sections, the page's parts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from serve.views import card, component_page, run_why
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE


def test_a_pdf_component_shows_its_pages_section_and_page_mates(
    filing_pdf: Path, hash_build: Callable[..., object], tmp_path: Path
) -> None:
    hash_build(filing_pdf, tmp_path / "index")
    graph = LayeredGraph.load(tmp_path / "index" / GRAPH_FILE)
    doc = next(iter(graph.nodes_at(0)))
    components = graph.children(doc)
    sectioned = next(c for c in components if graph.node(c).section)
    span = graph.node(sectioned).pages
    assert span is not None
    shown = card(graph, sectioned)
    assert shown["pages"] == [span[0], span[1]]  # zero-indexed, as everywhere else
    assert shown["section"] == list(graph.node(sectioned).section)
    page = component_page(graph, sectioned)
    mates = [part["component_id"] for part in page["page"]]
    assert sectioned in mates
    for mate in mates:
        pages = graph.node(mate).pages
        assert pages is not None and pages[0] <= span[1] and pages[1] >= span[0]
    elsewhere = [c for c in components if (graph.node(c).pages or (0, 0))[0] > span[1]]
    assert elsewhere and not set(elsewhere) & set(mates)


def test_why_names_the_step_and_the_link_that_reached_a_component() -> None:
    graph = LayeredGraph()
    history = [
        {
            "step": 1,
            "subquery": "flag of Warsaw",
            "strategy": {"doc_mode": "neighbors", "comp_mode": "vector"},
        }
    ]
    why = run_why(graph, {"step": 1, "via": ""}, history)
    assert why == "found at step 1 for subquery 'flag of Warsaw' (neighbors/vector)"
    assert run_why(graph, None, history) == "ranked by the system (no step record)"
