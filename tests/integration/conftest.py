"""Integration fixtures: the OTT-QA sample built once per session with the packaged embedder."""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import pytest

from corpus_builder.build import BuildOptions, build
from evals.datasets.questions import EvalExample, load_questions

logger = logging.getLogger(__name__)

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "ottqa-sample"
PREBUILT_SAMPLE = "FIF_TEST_SAMPLE_INDEX"
"""Env var naming an index already built from the sample (`fif build samples/ottqa-sample`),
copied instead of building one; unset (as in CI), the session builds it."""


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the sample with the default (packaged) embedder once for the whole run.

    Shared by every integration module: tests read it and may add checkpoints next to it
    (`fif ask` does), but must not rebuild or edit it.
    """
    index_dir = tmp_path_factory.mktemp("ottqa-sample") / "index"
    built = os.environ.get(PREBUILT_SAMPLE)
    if built:  # a local shortcut: copy an index of the same sample instead of building it
        shutil.copytree(built, index_dir)
        return index_dir
    started = time.perf_counter()
    build(SAMPLE, index_dir, BuildOptions(show_progress=False))
    logger.info("built %s in %.1f s", SAMPLE.name, time.perf_counter() - started)
    return index_dir


@pytest.fixture(scope="session")
def sample_examples() -> tuple[EvalExample, ...]:
    """Return the sample's questions with their gold components."""
    loaded = load_questions(SAMPLE / "questions.jsonl")
    assert loaded.examples and not loaded.problems, loaded.problems
    return loaded.examples
