"""OCR for PDF pages without a text layer and for raster regions, with Tesseract.

Tesseract (Debian's `tesseract-ocr`) is driven through pytesseract (the `ocr` extra). Each
job renders one page, or one region of it, with pypdfium2 in a worker process and returns
the text lines with their boxes in PDF points (top-left origin). Results are cached as JSON
under the cache folder (the index or bundle folder's `ocr-cache/`), keyed by the file's
content hash, the page, the region and the OCR settings, so a rebuild does not OCR again.
A failing or timed-out job is returned with its error; the caller reports it and goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from state.corpus import Box, BoxedLine

logger = logging.getLogger(__name__)

PROGRESS_EVERY_S = 10.0
OCR_CACHE = "ocr-cache"
"""Folder of an index or bundle where OCR results are kept."""


@dataclass(frozen=True)
class OcrOptions:
    """How OCR runs; OCR runs only when Tesseract and pytesseract are installed."""

    cache_dir: Path | None = None
    """Folder of cached results; None: nothing is cached."""
    workers: int = 0
    """Worker processes; 0: one per CPU."""
    timeout_s: float = 120.0
    """Seconds Tesseract may spend on one page or region before the job fails."""
    dpi: int = 200
    """Rendering resolution; Tesseract reads body text best from about 200-300 dpi."""
    lang: str = "eng"
    max_pixels: int = 24_000_000
    """Rendered pixels per job; a larger page is rendered at a lower resolution."""
    enabled: bool = True


@dataclass(frozen=True)
class OcrJob:
    """One page of a PDF, or one region of it (crop: a top-left box in points), to read."""

    path: str
    page: int
    crop: Box | None = None


@dataclass(frozen=True)
class OcrResult:
    """The lines OCR read with their page boxes, or the error that stopped it."""

    lines: tuple[BoxedLine, ...] = ()
    error: str = ""
    cached: bool = False


@dataclass
class OcrStats:
    """What the OCR of one build did, for the manifest and the benchmark."""

    jobs: int = 0
    cached: int = 0
    failed: int = 0
    seconds: float = 0.0
    pages: int = 0
    failures: list[str] = field(default_factory=list)


def ocr_unavailable() -> str | None:
    """Return why OCR cannot run here (a missing package or binary), or None when it can."""
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return "pytesseract is not installed (pip install -e '.[ocr]')"
    if shutil.which("tesseract") is None:
        return "the tesseract binary is not installed (apt-get install tesseract-ocr)"
    return None


class OcrRunner:
    """Run OCR jobs in worker processes, reading and writing the cache."""

    def __init__(self, options: OcrOptions, pool: ProcessPoolExecutor) -> None:
        self.options = options
        self.pool = pool
        self.stats = OcrStats()
        self._hashes: dict[str, str] = {}
        self._broken = False

    def run(self, jobs: Sequence[OcrJob]) -> list[OcrResult]:
        """Return the result of each job, in order; cached results are not recomputed."""
        results: list[OcrResult | None] = [self._cached(job) for job in jobs]
        if self._broken:
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool, self._broken = _pool(self.options), False
        pending: dict[int, Future[OcrResult]] = {
            i: self.pool.submit(
                run_job,
                job,
                self.options.dpi,
                self.options.lang,
                self.options.timeout_s,
                self.options.max_pixels,
            )  # fmt: skip
            for i, job in enumerate(jobs)
            if results[i] is None
        }
        started, shown = time.perf_counter(), time.perf_counter()
        for done, (i, future) in enumerate(pending.items(), start=1):
            result = self._result(future)
            results[i] = result
            self._store(jobs[i], result)
            if time.perf_counter() - shown > PROGRESS_EVERY_S or done == len(pending):
                shown = time.perf_counter()
                logger.info("OCR %d of %d jobs (%.1f s)", done, len(pending), shown - started)
        self.stats.seconds += time.perf_counter() - started
        final = [r if r is not None else OcrResult(error="not run") for r in results]
        self._count(jobs, final)
        return final

    def _result(self, future: Future[OcrResult]) -> OcrResult:
        """Return a job's result; a crashed worker (pdfium on a corrupt image) fails the job."""
        try:
            return future.result()
        except BrokenProcessPool as err:
            if not self._broken:
                logger.warning("an OCR worker crashed (%s); a new pool takes the next jobs", err)
                self._broken = True
            return OcrResult(error=f"OCR worker crashed ({err})")

    def _count(self, jobs: Sequence[OcrJob], results: Sequence[OcrResult]) -> None:
        for job, result in zip(jobs, results, strict=True):
            self.stats.jobs += 1
            self.stats.cached += result.cached
            self.stats.pages += job.crop is None and not result.cached
            if result.error:
                self.stats.failed += 1
                self.stats.failures.append(f"{job.path} page {job.page}: {result.error}")

    def _key(self, job: OcrJob) -> str:
        digest = self._hashes.get(job.path)
        if digest is None:
            digest = hashlib.sha1(Path(job.path).read_bytes()).hexdigest()
            self._hashes[job.path] = digest
        crop = [round(v, 1) for v in job.crop] if job.crop else None
        settings = [digest, job.page, crop, self.options.dpi, self.options.lang]
        return hashlib.sha1(json.dumps(settings).encode()).hexdigest()

    def _cache_file(self, job: OcrJob) -> Path | None:
        folder = self.options.cache_dir
        return None if folder is None else folder / f"{self._key(job)}.json"

    def _cached(self, job: OcrJob) -> OcrResult | None:
        path = self._cache_file(job)
        if path is None or not path.is_file():
            return None
        try:
            lines = json.loads(path.read_text("utf-8"))
            found = tuple(BoxedLine(str(x["text"]), tuple(x["box"])) for x in lines)  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError, TypeError) as err:
            logger.warning("OCR cache %s unreadable (%s); OCR runs again", path, err)
            return None
        return OcrResult(found, cached=True)

    def _store(self, job: OcrJob, result: OcrResult) -> None:
        path = self._cache_file(job)
        if path is None or result.error:  # a failure is retried by the next build
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [{"text": line.text, "box": list(line.box)} for line in result.lines]
        path.write_text(json.dumps(lines), "utf-8")


@contextmanager
def ocr_runner(options: OcrOptions | None) -> Iterator[OcrRunner | None]:
    """Yield a runner with its worker pool, or None when OCR is off or not installed."""
    if options is None or not options.enabled:
        yield None
        return
    missing = ocr_unavailable()
    if missing is not None:
        logger.warning("no OCR: %s; pages without a text layer stay text-less", missing)
        yield None
        return
    runner = OcrRunner(options, _pool(options))
    try:
        yield runner
    finally:
        runner.pool.shutdown(wait=True, cancel_futures=True)


def _pool(options: OcrOptions) -> ProcessPoolExecutor:
    workers = options.workers or os.cpu_count() or 1
    # spawn, not fork: pdfium keeps process-wide state that a forked child must not share
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_one_thread)


def _one_thread() -> None:
    """Keep each Tesseract to one thread: the pool already uses every CPU."""
    os.environ["OMP_THREAD_LIMIT"] = "1"


def run_job(job: OcrJob, dpi: int, lang: str, timeout_s: float, max_pixels: int) -> OcrResult:
    """Render a job's page or region and read its lines (runs in a worker process)."""
    from corpus_builder.pdf_ocr_engine import OCR_ERRORS, read_lines

    try:
        return OcrResult(read_lines(job.path, job.page, job.crop, dpi, lang, timeout_s, max_pixels))
    except OCR_ERRORS as err:  # returned, not raised: the build names the page and goes on
        return OcrResult(error=f"{type(err).__name__}: {err}"[:300])
