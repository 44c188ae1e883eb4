"""What the page shows of PDF boxes: a label per result, the lines read inside a region.

Built once from the generated figure report (a vector chart on page 0, a photo on page 1, a
scanned page 2), without OCR, so the scan is a bare page-sized region.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from figure_report import CHART_BOX, write_report

from corpus_builder.build import build
from corpus_builder.build_options import BuildOptions
from serve.grounding import grounded
from serve.page_boxes import region_label, region_lines
from serve.settings import ServedIndexSpec
from serve.views import card
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE


@pytest.fixture(scope="module")
def report_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report_index")
    pdf = write_report(folder / "report.pdf")
    options = BuildOptions(text_embedder="hash:64", show_progress=False, ocr=False)
    build(pdf, folder / "index", options)
    return folder / "index"


@pytest.fixture(scope="module")
def graph(report_index: Path) -> LayeredGraph:
    return LayeredGraph.load(report_index / GRAPH_FILE)


@pytest.mark.parametrize(
    ("node_id", "label"),
    [
        ("report::i0", "Figure 1"),
        ("report::i0::o2", "line in Figure 1"),
        ("report::i1", "Figure 2"),
        ("report::i2", "region"),  # the scan: no caption
        ("report::p0", "paragraph"),
        ("report::p0::s1", "sentence in paragraph"),  # a sentence stands for its paragraph's box
        ("report", None),  # a document has no box
    ],
)
def test_a_box_is_labelled_by_what_it_is(graph: LayeredGraph, node_id: str, label: str) -> None:
    assert region_label(graph, node_id) == label


def test_a_region_lists_its_lines_with_their_boxes_and_so_does_each_line(
    graph: LayeredGraph,
) -> None:
    lines = region_lines(graph, "report::i0")
    assert [line["text"] for line in lines] == ["2019", "2020", "2021", "2022", "2023"]
    x1, y1, x2, y2 = CHART_BOX
    for line in lines:
        lx1, ly1, lx2, ly2 = line["bbox"]
        assert x1 <= lx1 < lx2 <= x2 and y1 <= ly1 < ly2 <= y2  # inside the chart
    assert region_lines(graph, "report::i0::o3") == lines
    assert region_lines(graph, "report::p0") == [] and region_lines(graph, "report") == []


def test_cards_and_citations_carry_the_box_and_its_label(graph: LayeredGraph) -> None:
    chart = card(graph, "report::i0")
    assert chart["region_label"] == "Figure 1" and chart["pdf_page"] == 0
    assert chart["region"]["page"] == 0
    for got, drawn in zip(chart["region"]["bbox"], CHART_BOX, strict=True):
        assert abs(got - drawn) <= 1.0  # the chart's bars and axes, as drawn
    ranked = [{**chart, "rank": 1}]
    cited = grounded(graph, "Anvil sales by year", ranked, [])["cited"]
    assert cited[0]["region"] == chart["region"] and cited[0]["region_label"] == "Figure 1"


def test_the_component_panel_gets_the_lines_and_the_page_size(
    report_index: Path, make_client: Callable[..., TestClient]
) -> None:
    client = make_client(indices=(ServedIndexSpec("report", report_index),))
    panel = client.get("/api/components/report::i0::o1").json()
    assert panel["region_label"] == "line in Figure 1" and len(panel["region_lines"]) == 5
    assert panel["region"]["bbox"] == panel["region_lines"][1]["bbox"]
    page = client.get("/api/documents/report/pages/0").json()
    assert (page["width"], page["height"]) == (612.0, 792.0)  # letter
