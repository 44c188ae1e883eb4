import json
from collections.abc import Callable
from pathlib import Path

from corpus_builder.bundle import read_bundle
from corpus_builder.bundle_write import document_record
from corpus_builder.images import ImageGuard
from corpus_builder.pdf_ingest import read_pdf_document
from corpus_builder.splitters import FixedCrops, split_components
from state.corpus import Document, IngestReport


def overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def read(path: Path) -> tuple[Document, IngestReport]:
    report = IngestReport()
    document = read_pdf_document(path, report)
    assert document is not None
    return document, report


def test_a_vector_chart_is_an_image_component_with_caption_box_and_label_lines(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    from figure_report import CHART_BOX

    document, _ = read(report_writer(tmp_path / "report.pdf"))
    chart = next(c for c in document.components if c.text.startswith("Figure 1"))
    assert chart.kind == "image" and chart.pages == (0, 0)
    assert chart.box is not None and overlaps(chart.box, CHART_BOX)
    assert [line.text for line in chart.lines] == ["2019", "2020", "2021", "2022", "2023"]
    assert all(overlaps(line.box, CHART_BOX) for line in chart.lines)
    assert "Anvil sales by year" in chart.text and "2022" in chart.text


def test_every_component_has_a_page_and_a_box(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    document, _ = read(report_writer(tmp_path / "report.pdf"))
    for component in document.components:
        assert component.pages is not None and component.box is not None
        x1, y1, x2, y2 = component.box
        assert 0 <= x1 <= x2 <= 612 and 0 <= y1 <= y2 <= 792


def test_see_figure_mentions_become_references_to_the_region(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    document, _ = read(report_writer(tmp_path / "report.pdf"))
    by_caption = {
        c.text.split(":")[0]: c.component_id
        for c in document.components
        if c.kind == "image" and ":" in c.text
    }
    mention1 = next(c for c in document.components if "As shown in Figure 1" in c.text)
    mention2 = next(c for c in document.components if "See Figure 2" in c.text)
    assert by_caption["Figure 1"] in mention1.refers_to
    assert by_caption["Figure 2"] in mention2.refers_to


def test_a_page_without_text_stays_as_a_page_sized_region_and_is_reported(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    document, report = read(report_writer(tmp_path / "report.pdf"))
    assert document.textless_pages == (2,)
    [page] = [c for c in document.components if c.pages == (2, 2)]
    assert page.kind == "image" and page.box == (0.0, 0.0, 612.0, 792.0)
    assert any("without a text layer" in r.problem for r in report.repaired)


def test_boxes_and_region_lines_survive_a_bundle_and_become_subcomponents(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    document, _ = read(report_writer(tmp_path / "report.pdf"))
    bundle = tmp_path / "corpus.jsonl"
    bundle.write_text(json.dumps(document_record(document)) + "\n", "utf-8")
    [again] = read_bundle(bundle, IngestReport(), ImageGuard(tmp_path))
    assert again.components == document.components
    chart = next(c for c in again.components if c.lines)
    subs = split_components([again], FixedCrops())[chart.component_id]
    assert [s.text for s in subs] == [line.text for line in chart.lines]
    assert all(s.kind == "region" and s.pages == chart.pages and s.box for s in subs)
    assert subs[0].box == (94, 326, 112, 336)
