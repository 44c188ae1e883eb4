"""The lean encoder, its transformer pass traced, gives `encode`'s vectors bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from tools.embedders import TORCH_INT8_EMBEDDER, SentenceTransformerEmbedder, _load_st
from tools.mean_pooling import MeanPoolEncoder

pytestmark = pytest.mark.integration

TEXTS = [
    "How many times did the youngest American water polo player play in Olympic games ?",
    "many youngest",
    "hired",
    "Rick Stockstill hired",
    "What is the capacity of the mosque",
    "that was opened to the public 22 February 1978",
    "Çelik Zenica's 1998–99 season: 2-1 on aggregate",
    "abcd",  # as long as the next text: the batch order must break the tie as encode does
    "wxyz",
    " ".join(["a very long table row"] * 60),  # past the 128-token limit
]


def encode(embedder: SentenceTransformerEmbedder, texts: list[str]) -> np.ndarray:
    return np.asarray(
        embedder.model.encode(
            texts, batch_size=len(texts), convert_to_numpy=True, normalize_embeddings=True
        )
    )


@pytest.mark.parametrize("spec", [TORCH_INT8_EMBEDDER, "st:all-MiniLM-L6-v2#fp32@128"])
def test_lean_vectors_equal_encode_alone_and_in_batches(spec: str) -> None:
    embedder = _load_st(spec.removeprefix("st:"), allow_download=False)  # a fresh model
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert isinstance(embedder.lean, MeanPoolEncoder) and embedder.lean.traced()
    lean = [embedder.lean.encode([text]) for text in TEXTS]  # before encode ever ran
    for text, vector in zip(TEXTS, lean, strict=True):
        assert np.array_equal(vector, encode(embedder, [text])), text
    for batch in (TEXTS[:3], TEXTS[3:6], TEXTS[6:9], TEXTS):
        assert np.array_equal(embedder.lean.encode(batch), encode(embedder, batch))
    fast = [embedder.embed([text]) for text in TEXTS] + [embedder.embed(TEXTS)]
    embedder.lean = None  # embed as before: encode on each batch
    before = [embedder.embed([t]) for t in TEXTS] + [embedder.embed(TEXTS)]
    assert all(np.array_equal(a, b) for a, b in zip(fast, before, strict=True))
