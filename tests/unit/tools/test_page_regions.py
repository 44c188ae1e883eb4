from state.corpus import BoxedLine, Component, Document, Subcomponent
from tools.layered_graph import LayeredGraph
from tools.page_regions import region_ranking


def graph() -> LayeredGraph:
    chart = Component(
        "d::i0", "d", "image", 0, text="Figure 1", pages=(2, 2), box=(10.0, 20.0, 110.0, 220.0),
        lines=(BoxedLine("2021", (12.0, 30.0, 40.0, 40.0)),),
    )  # fmt: skip
    text = Component(
        "d::p0", "d", "paragraph", 1, text="Sales rose.", pages=(2, 3), box=(1, 2, 3, 4)
    )
    web = Component("w::p0", "w", "paragraph", 0, text="No pages.")
    g = LayeredGraph()
    g.add_document(Document("d", "D", components=(chart, text), page_count=4), "D")
    g.add_document(Document("w", "W", components=(web,)), "W")
    g.add_subcomponents([
        Subcomponent("d::i0::o0", "d::i0", "d", "region", 0, "2021", (), (12, 30, 40, 40), (2, 2)),
        Subcomponent("d::p0::s0", "d::p0", "d", "sentence", 0, "Sales rose.", (), None, (2, 2)),
    ])  # fmt: skip
    return g


def test_ranked_nodes_read_as_ranked_boxes_each_once() -> None:
    ranking = ["w::p0", "d::i0::o0", "d::p0::s0", "d::p0", "d::i0", "missing"]
    assert region_ranking(graph(), ranking) == [
        {"doc": "d", "page": 2, "bbox": [12.0, 30.0, 40.0, 40.0]},
        {"doc": "d", "page": 2, "bbox": [1.0, 2.0, 3.0, 4.0]},
        {"doc": "d", "page": 2, "bbox": [10.0, 20.0, 110.0, 220.0]},
    ]
