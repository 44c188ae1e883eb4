"""The `fif serve` process and the Chromium the browser tests drive, started once per module.

`Server` runs `python -m fif serve` on a free loopback port over given indices and can be
restarted (a new process on the same folders); `browser` is Debian's Chromium through
Playwright; `page` fails its test on any uncaught JavaScript error. Screenshots go to
`runs/test-artifacts/serve/` (gitignored).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from evals.results_log import RESULTS_FILE

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "runs" / "test-artifacts" / "serve"
CHECKS = Path(__file__).resolve().parent / "browser_checks"
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
STEP_SECONDS = 20


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
    """Return a runs folder holding one real `fif eval` output (mini bundle, hash embedder)
    and `mini-b`, the same run with FiF's first hit turned into a miss (`worse_run`).

    The run's index is `<runs>/../mini-index`, which the server serves as `mini`.
    """
    from corpus_builder.build import BuildOptions, build
    from evals.report import write_report
    from evals.runner import run

    folder = tmp_path_factory.mktemp("serve-evals")
    index = folder / "mini-index"
    build(MINI_BUNDLE, index, BuildOptions(text_embedder="hash:64", show_progress=False))
    out = folder / "runs" / "mini"
    summary = run(["dense", "fif"], MINI_BUNDLE, index, out, progress=False)
    write_report(out, MINI_BUNDLE / "questions.jsonl", summary.systems)
    worse_run(out, folder / "runs" / "mini-b")
    return folder / "runs"


def worse_run(run: Path, copy: Path) -> str:
    """Copy an eval run with FiF's ranking of its first hit emptied; return that qid."""
    shutil.copytree(run, copy)
    questions = (MINI_BUNDLE / "questions.jsonl").read_text().splitlines()
    gold = {q["qid"]: set(q["gold_components"]) for q in map(json.loads, questions)}
    lines = [json.loads(line) for line in (copy / RESULTS_FILE).read_text().splitlines()]
    first = next(x for x in lines if x["system"] == "fif" and _ids(x["ranking"]) & gold[x["qid"]])
    for line in lines:
        if line["system"] == "fif" and line["qid"] == first["qid"]:
            line["ranking"] = []
    (copy / RESULTS_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(first["qid"])


def _ids(ranking: list[object]) -> set[str]:
    """Return the component ids of a results line's ranking (ids or result objects)."""
    return {str(r["component_id"]) if isinstance(r, dict) else str(r) for r in ranking}


class Server:
    """A `fif serve` process over fixed index copies; `restart` starts a new process."""

    def __init__(self, indices: list[str], eval_runs: Path, log: Path) -> None:
        self.command = [sys.executable, "-m", "fif", "serve", *indices, "--runs", str(eval_runs)]
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        port = free_port()
        with self.log.open("ab") as sink:
            self.process = subprocess.Popen(
                [*self.command, "--port", str(port)],
                cwd=REPO,
                stdout=sink,
                stderr=sink,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                start_new_session=True,
            )
        self.url = f"http://127.0.0.1:{port}"
        wait_until_up(self.url, self.process, self.log)

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="module")
def server(
    sample_index: Path,
    filing_index: Path,
    eval_runs: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Server]:
    """Run `fif serve` on a copy of the sample index, the filing index and the eval runs' index."""
    index = Path(shutil.copytree(sample_index, tmp_path_factory.mktemp("serve") / "index"))
    filing = Path(shutil.copytree(filing_index, index.parent / "filing"))
    mini = eval_runs.parent / "mini-index"  # the eval runs' own index
    indices = [
        "--index",
        f"sample={index}",
        "--index",
        f"filing={filing}",
        "--index",
        f"mini={mini}",
    ]
    running = Server(indices, eval_runs, index.parent / "serve.log")
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Launch Debian's Chromium once for the module."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium (make browser)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """Open a fresh page at desktop size; fail the test on an uncaught JavaScript error."""
    opened = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.set_default_timeout(STEP_SECONDS * 1000)
    yield opened
    opened.close()
    assert not errors, f"uncaught JavaScript errors: {errors}"


def shot(page: Page, name: str) -> None:
    """Save a full-page screenshot under the test artifacts folder."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
