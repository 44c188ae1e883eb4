"""Fixtures for the evals tests: raw benchmark files copied into tmp_path."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

RAW = Path(__file__).resolve().parents[2] / "fixtures" / "raw"


def _gzip_copy(source: Path, target: Path) -> None:
    with source.open("rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)


@pytest.fixture
def mmqa_raw(tmp_path: Path) -> Path:
    """Return a folder holding the MMQA fixture gzipped, as MMQA publishes it."""
    raw = tmp_path / "mmqa_raw"
    raw.mkdir()
    for source in (RAW / "mmqa").glob("*.jsonl"):
        _gzip_copy(source, raw / (source.name + ".gz"))
    return raw


@pytest.fixture
def mmcoqa_raw(tmp_path: Path) -> Path:
    """Return a folder with MMCoQA's questions and qrels plus the MMQA collections, plain JSONL."""
    raw = tmp_path / "mmcoqa_raw"
    (raw / "QA pairs").mkdir(parents=True)
    for source in (RAW / "mmcoqa").iterdir():
        shutil.copy(source, raw / "QA pairs" / source.name)
    prefix = "multimodalqa_final_dataset_pipeline_camera_ready_"
    for kind in ("texts", "tables", "images"):
        shutil.copy(RAW / "mmqa" / f"MMQA_{kind}.jsonl", raw / f"{prefix}MMQA_{kind}.jsonl")
    return raw


@pytest.fixture
def ottqa_raw() -> Path:
    """Return the OTT-QA fixture folder (read only)."""
    return RAW / "ottqa"


@pytest.fixture
def webqa_raw() -> Path:
    """Return the WebQA fixture folder (read only)."""
    return RAW / "webqa"


def read_jsonl(path: Path) -> list[dict]:
    """Return the objects of a JSONL file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


@dataclass(frozen=True)
class Bundle:
    """A written bundle, read back."""

    docs: dict[str, dict]
    questions: list[dict]
    stats: dict

    @property
    def component_ids(self) -> set[str]:
        return {c["component_id"] for doc in self.docs.values() for c in doc["components"]}

    def component(self, cid: str) -> dict:
        return next(
            c for doc in self.docs.values() for c in doc["components"] if c["component_id"] == cid
        )

    def question(self, qid: str) -> dict:
        return next(q for q in self.questions if q["qid"] == qid)


@pytest.fixture
def read_bundle() -> Callable[[Path], Bundle]:
    """Return a reader for a written bundle folder."""

    def read(out_dir: Path) -> Bundle:
        docs = {doc["doc_id"]: doc for doc in read_jsonl(out_dir / "corpus.jsonl")}
        stats = json.loads((out_dir / "stats.json").read_text(encoding="utf-8"))
        return Bundle(docs, read_jsonl(out_dir / "questions.jsonl"), stats)

    return read
