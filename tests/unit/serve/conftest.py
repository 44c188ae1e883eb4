"""Fixtures of the server tests: writable copies of two indices, a runs folder, a client.

The server serves the mini index as `mini` (the default) and the synthetic filing PDF index
as `filing`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from serve.app import create_app
from serve.settings import ServedIndexSpec, ServeSettings


@pytest.fixture(scope="module")
def served_index(mini_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a copy of the mini index that runs may write checkpoints next to."""
    return Path(shutil.copytree(mini_index, tmp_path_factory.mktemp("served") / "index"))


@pytest.fixture(scope="module")
def served_filing(filing_index: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a copy of the filing index (its graph still names the PDF where it was built)."""
    return Path(shutil.copytree(filing_index, tmp_path_factory.mktemp("served") / "filing"))


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Return a runs folder with one eval output: summary, two result lines, a plot."""
    from PIL import Image

    runs = tmp_path_factory.mktemp("runs")
    out = runs / "mini"
    out.mkdir()
    (out / "summary.md").write_text(
        "# Evaluation summary\n\n| system | R@1 |\n|---|---|\n| fif | 0.5 |\n"
    )
    (out / "run_config.json").write_text("{}")
    lines = [
        {"qid": "q1", "system": "fif", "ranking": ["a::p0", "b::p1"], "latency_ms": 5.0},
        {"qid": "q1", "system": "dense", "ranking": [], "error": "RuntimeError: boom"},
    ]
    (out / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    Image.new("RGB", (8, 8), "blue").save(out / "recall_at_k.png")
    (out / "secret.txt").write_text("not served")
    (runs.parent / "outside.png").write_bytes((out / "recall_at_k.png").read_bytes())
    return runs


@pytest.fixture(scope="module")
def make_client(
    served_index: Path, served_filing: Path, runs_dir: Path
) -> Iterator[Callable[..., TestClient]]:
    """Return `make(token=None, runs=True, indices=None)`: a started TestClient over the given
    indices (default: both served indices)."""
    clients: list[TestClient] = []
    both = (ServedIndexSpec("mini", served_index), ServedIndexSpec("filing", served_filing))

    def make(
        token: str | None = None,
        runs: bool = True,
        indices: tuple[ServedIndexSpec, ...] | None = None,
    ) -> TestClient:
        settings = ServeSettings(indices or both, runs_dir if runs else None, token).checked()
        client = TestClient(create_app(settings), base_url="http://localhost")
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def client(make_client: Callable[..., TestClient]) -> TestClient:
    """Return a client of a server without a token, with the runs folder."""
    return make_client()
