"""OCR with the real Tesseract: a scanned page's words become searchable text with boxes."""

from collections.abc import Callable
from pathlib import Path

import pytest

from corpus_builder.pdf_ingest import read_pdfs
from corpus_builder.pdf_ocr import OCR_CACHE, OcrOptions, ocr_unavailable
from state.corpus import IngestReport

pytestmark = pytest.mark.integration


def test_a_scanned_page_is_read_once_and_then_from_the_cache(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    missing = ocr_unavailable()
    if missing is not None:
        pytest.skip(f"no OCR here: {missing}")
    pdf = report_writer(tmp_path / "report.pdf", scan_text="ANVIL OUTPUT")
    options = OcrOptions(tmp_path / OCR_CACHE, workers=1)
    first = IngestReport()
    [document] = read_pdfs([pdf], first, None, options)
    scanned = [c for c in document.components if c.pages == (2, 2)]
    assert any("ANVIL OUTPUT" in c.text for c in scanned)
    assert all(c.box is not None for c in scanned)
    assert first.ocr["pages"] == 1 and first.ocr["failed"] == 0
    again = IngestReport()
    [same] = read_pdfs([pdf], again, None, options)
    assert again.ocr["cached"] == again.ocr["jobs"] and same.components == document.components


def test_a_page_tesseract_times_out_on_is_named_and_the_rest_is_read(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    missing = ocr_unavailable()
    if missing is not None:
        pytest.skip(f"no OCR here: {missing}")
    pdf = report_writer(tmp_path / "report.pdf", scan_text="ANVIL OUTPUT")
    report = IngestReport()
    options = OcrOptions(tmp_path / OCR_CACHE, workers=1, timeout_s=0.001)
    [document] = read_pdfs([pdf], report, None, options)
    failed = [r.problem for r in report.repaired if "OCR failed on page 2" in r.problem]
    assert failed and "timeout" in failed[0].lower(), report.repaired
    assert report.ocr["failed"] >= 1 and not list((tmp_path / OCR_CACHE).glob("*.json"))
    assert any("As shown in Figure 1" in c.text for c in document.components)  # the rest
