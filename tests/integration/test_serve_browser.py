"""`fif serve` in a real headless browser: search, open a component, trace, replay, fork, evals,
then pick a second index (a synthetic PDF) and open a component's printed page.

The server runs as `python -m fif serve` on a free loopback port over a copy of the sample
index (it writes checkpoints next to it) and the filing index; Chromium is Debian's, driven
by Playwright for Python. Screenshots go to `runs/test-artifacts/serve/` (gitignored), and
the first paint of the page is measured and printed (target: under one second).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (dev extra)")
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

logger = logging.getLogger(__name__)
pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "runs" / "test-artifacts" / "serve"
MINI_BUNDLE = REPO / "tests" / "fixtures" / "mini_bundle"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
START_SECONDS = 120
FIRST_PAINT_TARGET_MS = 1000.0
FIRST_PAINT = """() => new Promise((resolve) => {
  const seen = (entries) => entries.find((e) => e.name === "first-contentful-paint");
  const now = seen(performance.getEntriesByType("paint"));
  if (now) return resolve(now.startTime);
  new PerformanceObserver((list) => {
    const entry = seen(list.getEntries());
    if (entry) resolve(entry.startTime);
  }).observe({ type: "paint", buffered: true });
})"""
"""The page's first contentful paint (ms after navigation), waiting for it if not yet in."""
QUESTION = "Which team in the 2003-2004 Kategoria Superiore is the oldest club in Albania?"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"fif serve exited with {server.returncode}: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/api/systems", timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    pytest.fail(f"fif serve did not answer in {START_SECONDS} s: {log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def eval_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a runs folder holding one real `fif eval` output (mini bundle, hash embedder)."""
    from corpus_builder.build import BuildOptions, build
    from evals.report import write_report
    from evals.runner import run

    folder = tmp_path_factory.mktemp("serve-evals")
    index = folder / "mini-index"
    build(MINI_BUNDLE, index, BuildOptions(text_embedder="hash:64", show_progress=False))
    out = folder / "runs" / "mini"
    summary = run(["dense", "fif"], MINI_BUNDLE, index, out, progress=False)
    write_report(out, MINI_BUNDLE / "questions.jsonl", summary.systems)
    return folder / "runs"


@pytest.fixture(scope="module")
def server(
    sample_index: Path,
    filing_index: Path,
    eval_runs: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """Run `fif serve` on a copy of the sample index and the filing index; yield its URL."""
    index = Path(shutil.copytree(sample_index, tmp_path_factory.mktemp("serve") / "index"))
    filing = Path(shutil.copytree(filing_index, index.parent / "filing"))
    port = free_port()
    log = index.parent / "serve.log"
    indices = ["--index", f"sample={index}", "--index", f"filing={filing}"]
    command = [sys.executable, "-m", "fif", "serve", *indices, "--port", str(port)]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--runs", str(eval_runs)],
            cwd=REPO,
            stdout=sink,
            stderr=sink,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process, log)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_the_page_searches_traces_replays_forks_and_shows_evals(
    server: str, record_property: Callable[[str, object], None]
) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            record_property("first_paint_ms", round(drive_page(page, server), 1))
        finally:
            browser.close()


def drive_page(page: Page, url: str) -> float:
    """Walk the page through every tab, asserting what it shows; return the first paint (ms)."""
    page.goto(url + "/")
    paint = float(page.evaluate(FIRST_PAINT))
    logger.info("first contentful paint: %.0f ms (target < %.0f)", paint, FIRST_PAINT_TARGET_MS)
    (ARTIFACTS / "first_paint_ms.txt").write_text(f"{paint:.1f}\n")
    assert paint < FIRST_PAINT_TARGET_MS, f"first paint took {paint:.0f} ms"
    search_and_open_a_component(page)
    watch_a_trace(page)
    replay_and_fork(page)
    open_an_eval_report(page)
    open_a_pdf_page_of_another_index(page)
    return paint


def search_and_open_a_component(page: Page) -> None:
    page.fill("#search-q", "oldest club in Albania")
    page.click("#search-form button[type=submit]")
    expect(page.locator("#search-results li.result").first).to_be_visible(timeout=30_000)
    assert page.locator("#search-results li.result").count() == 10
    shot(page, "1-search")
    first = page.locator("#search-results li.result").first
    component_id = first.get_attribute("data-open") or ""  # the passage that matched
    first.click()
    expect(page.locator("#component-id")).to_have_text(component_id)
    expect(page.locator(".page-part.highlight")).to_have_count(1)
    expect(page.locator(".page-part.highlight mark")).to_have_count(1)
    shot(page, "2-component")
    page.reload()  # the component id in the URL opens the same passage again
    expect(page.locator("#component-id")).to_have_text(component_id)
    page.click("#component-close")


def watch_a_trace(page: Page) -> None:
    page.click("nav button[data-tab=ask]")
    page.fill("#ask-q", QUESTION)
    page.click("#ask-form button[type=submit]")
    expect(page.locator("#live .status")).to_contain_text("done", timeout=60_000)
    assert page.locator("#live table.trace tbody tr").count() >= 4
    verdicts = page.locator("#live tr.ok td.verdict, #live tr.failed td.verdict")
    expect(verdicts.first).to_have_text(re.compile("success|failure|answered"))
    expect(page.locator("#live li.result").first).to_be_visible()
    expect(page.locator("#live .cost")).to_contain_text("work_ms")
    expect(page.locator("#live .traversal circle.doc-dot").first).to_be_visible()
    shot(page, "3-trace")


def replay_and_fork(page: Page) -> None:
    page.click("nav button[data-tab=threads]")
    page.locator("#threads-table tbody tr").first.click()
    expect(page.locator("#replay-position")).to_contain_text("event 1 /")
    page.click("#replay-next")
    page.click("#replay-next")
    expect(page.locator("#replay table.trace tbody tr")).to_have_count(2)
    shot(page, "4-replay")
    page.fill("#fork-steps", "2")
    page.locator("#replay button.fork").nth(1).click()
    expect(page.locator("#replay .status")).to_contain_text("fork of", timeout=30_000)
    expect(page.locator("#replay .status")).to_contain_text("done", timeout=60_000)
    judged = page.locator("#replay tr.ok, #replay tr.failed")
    assert 1 <= judged.count() <= 2, "the fork's budget of two traversals did not hold"
    shot(page, "5-fork")


def open_an_eval_report(page: Page) -> None:
    page.click("nav button[data-tab=evals]")
    page.locator("#evals-list [data-run=mini]").click()
    expect(page.locator("#eval-summary table").first).to_be_visible()
    plot = page.locator(".plots img").first
    expect(plot).to_be_visible()
    assert plot.evaluate("img => img.naturalWidth") > 0, "the plot did not load"
    shot(page, "6-evals")


def open_a_pdf_page_of_another_index(page: Page) -> None:
    page.click("nav button[data-tab=search]")
    page.select_option("#index-picker", "filing")
    page.fill("#search-q", "revenue recognition")
    page.click("#search-form button[type=submit]")
    first = page.locator("#search-results li.result").first
    expect(first.locator("a.page-link")).to_have_text(re.compile(r"page \d+"), timeout=30_000)
    first.click()
    expect(page.locator("#component-body .badge").nth(1)).to_have_text("filing")
    page.reload()  # the URL names the index too: the same passage of the same index reopens
    expect(page.locator("#component-body .badge").nth(1)).to_have_text("filing")
    page.locator("#component-body details.page-image summary").click()
    printed = page.locator("#component-body details.page-image img")
    expect(printed).to_be_visible()
    printed.evaluate("img => img.decode()")
    assert printed.evaluate("img => img.naturalWidth") > 500, "the page image did not load"
    shot(page, "7-pdf-page")


def shot(page: Page, name: str) -> None:
    """Save a full-page screenshot under the test artifacts folder."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
