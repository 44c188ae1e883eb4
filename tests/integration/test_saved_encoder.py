"""The saved query encoder: written by the first slow load, then loaded without the model.

It must embed every text bit for bit as the model's own embedder does, and any damage or
change to what was saved must send the next process back to the model.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest
from test_mean_pooling import TEXTS

from tools.embedders import TORCH_INT8_EMBEDDER, SentenceTransformerEmbedder, load_embedder
from tools.model_files import STAGING_PREFIX
from tools.saved_encoder import (
    META_FILE,
    MODULE_FILE,
    SavedQueryEncoder,
    encoder_folder,
    load_query_encoder,
    query_embedder,
    save_query_encoder,
    weights_of,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FIF_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_the_first_load_saves_and_the_next_embeds_bit_for_bit(cache: Path) -> None:
    first = query_embedder.__wrapped__(TORCH_INT8_EMBEDDER)  # past the process's lru_cache
    assert isinstance(first, SentenceTransformerEmbedder)
    weights = weights_of(TORCH_INT8_EMBEDDER)
    assert weights is not None and encoder_folder(TORCH_INT8_EMBEDDER, weights).is_dir()
    saved = query_embedder.__wrapped__(TORCH_INT8_EMBEDDER)
    assert isinstance(saved, SavedQueryEncoder)
    assert (saved.model_id, saved.dim) == (first.model_id, first.dim)
    for text in TEXTS:
        assert np.array_equal(saved.embed([text]), first.embed([text])), text
    for batch in (TEXTS[:3], TEXTS, []):
        assert np.array_equal(saved.embed(batch), first.embed(batch))


def test_a_damaged_or_changed_save_is_not_used(cache: Path) -> None:
    embedder = load_embedder(TORCH_INT8_EMBEDDER)
    folder = cache / "encoder"
    assert save_query_encoder(embedder, folder) and load_query_encoder(folder) is not None
    meta = json.loads((folder / META_FILE).read_text())
    meta["check"][0][0] += 1e-3  # vectors that another model or torch would give
    (folder / META_FILE).write_text(json.dumps(meta))
    assert load_query_encoder(folder) is None
    (folder / MODULE_FILE).write_bytes(b"not a TorchScript archive")
    assert load_query_encoder(folder) is None
    assert load_query_encoder(cache / "nothing saved here") is None
    weights = weights_of(TORCH_INT8_EMBEDDER)
    assert weights is not None
    fp32 = encoder_folder("st:all-MiniLM-L6-v2#fp32@128", weights)
    assert fp32 != encoder_folder(TORCH_INT8_EMBEDDER, weights)  # one save per spec


def test_a_save_abandoned_over_an_hour_ago_is_cleared_by_the_next(cache: Path) -> None:
    old, fresh = cache / f"{STAGING_PREFIX}old", cache / f"{STAGING_PREFIX}fresh"
    for staging in (old, fresh):
        staging.mkdir()
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    assert save_query_encoder(load_embedder(TORCH_INT8_EMBEDDER), cache / "encoder")
    assert not old.exists() and fresh.exists()  # a save in progress elsewhere is left alone


def test_an_unwritable_cache_only_costs_the_slow_load(cache: Path) -> None:
    blocked = cache / "file"
    blocked.write_text("a file where the cache folder would go")
    assert not save_query_encoder(load_embedder(TORCH_INT8_EMBEDDER), blocked / "encoder")
    assert weights_of("hash:64") is None  # only sentence-transformers models are saved
