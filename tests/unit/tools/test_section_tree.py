"""The section tree from section paths and pages, fetch_section's page tags, the calculator."""

from __future__ import annotations

import pytest

from state.corpus import Component, Document, Subcomponent
from tools.calculator import CalculationError, evaluate, to_number
from tools.layered_graph import LayeredGraph
from tools.section_text import fetch_section
from tools.section_tree import build_section_tree


def component(
    n: int, text: str, pages: tuple[int, int] | None, section: tuple[str, ...]
) -> Component:
    return Component(f"d::p{n}", "d", "paragraph", n, text, pages=pages, section=section)


def graph_of(*components: Component) -> LayeredGraph:
    graph = LayeredGraph()
    graph.add_document(Document("d", "Doc", "", list(components)), "summary")
    graph.add_subcomponents(
        Subcomponent(
            f"{c.component_id}::s0", c.component_id, "d", "sentence", 0, c.text, pages=c.pages
        )
        for c in components
    )
    return graph


def test_paths_become_a_tree_and_a_re_entered_path_opens_a_new_section():
    graph = graph_of(
        component(0, "Intro.", (0, 0), ("Item 7",)),
        component(1, "Sales rose.", (3, 3), ("Item 7", "Results")),
        component(2, "More sales.", (4, 5), ("Item 7", "Results")),
        component(3, "Cash.", (6, 6), ("Item 7", "Liquidity")),
        component(4, "Results again.", (9, 9), ("Item 7", "Results")),
    )
    tree = build_section_tree(graph, "d")
    headings = [tree.heading(s) for s in tree.sections()]
    assert headings == ["Item 7", "Item 7 > Results", "Item 7 > Liquidity", "Item 7 > Results"]
    item7 = tree.sections()[0]
    assert tree.spans[item7] == (0, 9)
    assert tree.components_under(item7) == [f"d::p{n}" for n in range(5)]
    assert tree.of_component["d::p2"] == tree.of_component["d::p1"] != tree.of_component["d::p4"]


def test_documents_without_sections_get_one_leaf_per_component():
    tree = build_section_tree(
        graph_of(component(0, "A page.", None, ()), component(1, "B.", None, ())), "d"
    )
    assert len(tree.sections()) == 2 and tree.spans[tree.root] is None
    assert tree.heading(tree.sections()[0]).startswith("paragraph 0: A page.")


def test_fetch_section_tags_blocks_with_pages_and_stops_at_the_budget():
    graph = graph_of(
        component(0, "Sales rose to $5,298 million.", (3, 3), ("Results",)),
        component(1, "x " * 400, (4, 5), ("Results",)),
    )
    tree = build_section_tree(graph, "d")
    fetched = fetch_section(graph, tree, tree.sections()[0], max_chars=200)
    assert fetched.text().splitlines()[1] == "[p.3] Sales rose to $5,298 million."
    assert fetched.truncated and fetched.page_numbers() == {3}
    whole = fetch_section(graph, tree, tree.sections()[0], max_chars=10_000)
    assert "[pp.4-5]" in whole.text() and whole.page_numbers() == {3, 4, 5}


def test_the_calculator_computes_over_names_and_refuses_everything_else():
    assert evaluate("f2 / f1 * 100", {"f1": 5298.0, "f2": 1060.0}) == pytest.approx(20.0075, 1e-4)
    assert evaluate("-(a - b)", {"a": 1.0, "b": 3.0}) == 2.0
    for bad in ("__import__('os')", "f1 ** 2", "f3 + 1", "f1 / 0", "[1]", "True + 1"):
        with pytest.raises(CalculationError):
            evaluate(bad, {"f1": 2.0})
    assert to_number("$5,298") == 5298.0 and to_number("(50)") == -50.0
    assert to_number("1.2 billion") == 1.2e9 and to_number("12.5%") == 12.5
    assert to_number("n/a") is None
