from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

from corpus_builder import pdf_ocr
from corpus_builder.pdf_ocr import OcrJob, OcrOptions, OcrResult, OcrRunner, ocr_runner
from corpus_builder.pdf_ocr_pages import apply_ocr, ocr_jobs
from corpus_builder.pdf_reader import read_pdf
from state.corpus import BoxedLine, IngestReport

SCAN_LINE = BoxedLine("Quarterly anvil output", (50.0, 60.0, 250.0, 80.0))


def fake_job(job: OcrJob, *_: object) -> OcrResult:
    if job.page == 99:
        return OcrResult(error="RuntimeError: Tesseract process timeout")
    return OcrResult((SCAN_LINE,))


def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OcrRunner:
    monkeypatch.setattr(pdf_ocr, "run_job", fake_job)
    return OcrRunner(OcrOptions(tmp_path / "cache"), ThreadPoolExecutor(1))  # type: ignore[arg-type]


def test_results_are_cached_and_failures_are_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4 stand-in")
    ocr = runner(tmp_path, monkeypatch)
    jobs = [OcrJob(str(pdf), 0), OcrJob(str(pdf), 99), OcrJob(str(pdf), 0, (1.0, 2.0, 3.0, 4.0))]
    first = ocr.run(jobs)
    assert [r.lines for r in first] == [(SCAN_LINE,), (), (SCAN_LINE,)]
    assert first[1].error and not any(r.cached for r in first)
    second = ocr.run(jobs)
    assert [r.cached for r in second] == [True, False, True]
    assert second[0].lines == (SCAN_LINE,)
    assert ocr.stats.failed == 2 and ocr.stats.cached == 2
    assert "a.pdf page 99: RuntimeError" in ocr.stats.failures[0]


def test_a_changed_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"one")
    runner(tmp_path, monkeypatch).run([OcrJob(str(pdf), 0)])
    pdf.write_bytes(b"two")
    [again] = runner(tmp_path, monkeypatch).run([OcrJob(str(pdf), 0)])
    assert not again.cached


class ScriptedRunner:
    """Stands in for OcrRunner: answers each job from a table, records what was asked."""

    def __init__(self, answer: Callable[[OcrJob], OcrResult]) -> None:
        self.answer = answer
        self.asked: list[OcrJob] = []

    def run(self, jobs: Sequence[OcrJob]) -> list[OcrResult]:
        self.asked += jobs
        return [self.answer(job) for job in jobs]


def test_ocr_lines_fill_the_text_less_page_and_the_raster_region(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    pdf = read_pdf(report_writer(tmp_path / "report.pdf"))
    scripted = ScriptedRunner(lambda job: OcrResult((SCAN_LINE,)))
    apply_ocr(pdf, scripted, IngestReport())  # type: ignore[arg-type]
    assert [(j.page, j.crop is None) for j in scripted.asked] == [(1, False), (2, True)]
    assert [line.text for line in pdf.pages[2].lines] == ["Quarterly anvil output"]
    line = pdf.pages[2].lines[0]
    assert (line.left, line.right, line.top, line.bottom) == (50.0, 250.0, 792 - 60.0, 792 - 80.0)
    assert pdf.pages[1].regions[0].ocr_lines == (SCAN_LINE,)
    assert ocr_jobs(pdf) == [scripted.asked[0]]  # the page has text now; the region still raster


def test_an_ocr_failure_is_reported_and_the_page_kept(
    tmp_path: Path, report_writer: Callable[..., Path]
) -> None:
    pdf = read_pdf(report_writer(tmp_path / "report.pdf"))
    report = IngestReport()
    scripted = ScriptedRunner(lambda job: OcrResult(error="RuntimeError: timeout"))
    apply_ocr(pdf, scripted, report)  # type: ignore[arg-type]
    assert pdf.pages[2].lines == []
    problems = [r.problem for r in report.repaired]
    assert "OCR failed on page 2 (RuntimeError: timeout); kept without it" in problems


def test_no_tesseract_means_no_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_ocr.shutil, "which", lambda name: None)
    with ocr_runner(OcrOptions()) as found:
        assert found is None
    with ocr_runner(None) as found:
        assert found is None


def test_a_worker_that_dies_fails_its_job_and_a_new_pool_takes_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ocr_crash import crash_on_page_one

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4 stand-in")
    monkeypatch.setattr(pdf_ocr, "run_job", crash_on_page_one)
    spawn = ProcessPoolExecutor(1, mp_context=get_context("spawn"))  # as the build's pool
    ocr = OcrRunner(OcrOptions(tmp_path / "cache", workers=1), spawn)
    [died] = ocr.run([OcrJob(str(pdf), 1)])
    [after] = ocr.run([OcrJob(str(pdf), 0)])  # on a new pool: the broken one is replaced
    ocr.pool.shutdown()
    assert died.error.startswith("OCR worker crashed") and not after.error
    assert ocr.stats.failed == 1 and "a.pdf page 1: OCR worker crashed" in ocr.stats.failures[0]
