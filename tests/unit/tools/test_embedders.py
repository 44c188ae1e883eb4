import numpy as np
import pytest

from tools.embedders import (
    EMBEDDER_BACKENDS,
    HashEmbedder,
    embed_each,
    load_embedder,
    resolve_model_path,
)
from tools.errors import ConfigError, ModelUnavailableError


def test_hash_embedder_gives_deterministic_unit_vectors() -> None:
    embedder = HashEmbedder(64)
    vectors = embedder.embed(["Marie Curie", "marie CURIE", "", "Polonium is element 84"])
    assert vectors.shape == (4, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.allclose(vectors[0], vectors[1])
    assert np.allclose(HashEmbedder(64).embed(["Polonium is element 84"])[0], vectors[3])
    assert embedder.embed([]).shape == (0, 64)


def test_shared_words_mean_higher_similarity() -> None:
    query, near, far = HashEmbedder(256).embed(
        ["flag of Warsaw", "the flag of Warsaw is yellow and red", "radium glows in the dark"]
    )
    assert float(query @ near) > float(query @ far)


def test_load_embedder_caches_one_instance_per_spec() -> None:
    first = load_embedder("hash:64")
    assert load_embedder("hash:64") is first
    assert load_embedder("hash:64", False) is first  # the builder's call form shares it
    assert (first.model_id, first.dim) == ("hash:64", 64)


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("word2vec:x", ConfigError, "unknown embedder spec 'word2vec:x'; known backends: st:"),
        ("hash", ConfigError, "known backends"),
        ("hash:wide", ConfigError, "hash embedder needs a dimension, e.g. hash:64"),
        ("st:all-MiniLM-L6-v2#fp16", ConfigError, "use #fp32 or #int8"),
        ("st:/no/such/model", ModelUnavailableError, "pass --allow-download"),
        ("clip:/no/such/clip", ModelUnavailableError, "no such local folder"),
    ],
)
def test_bad_specs_say_what_to_do(spec: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace("#", r"\#")):
        load_embedder(spec)


def test_unknown_spec_lists_every_backend() -> None:
    with pytest.raises(ConfigError) as info:
        load_embedder("nope:1")
    assert all(f"{name}:" in str(info.value) for name in EMBEDDER_BACKENDS)


def test_packaged_models_resolve_to_their_folder() -> None:
    from pathlib import Path

    folder = Path(resolve_model_path("all-MiniLM-L6-v2"))
    assert (folder / "config.json").is_file()
    assert resolve_model_path("/models/mine") == "/models/mine"


class BatchScaledEmbedder(HashEmbedder):
    """Like int8 kernels, scales every vector of a pass by the pass's longest text."""

    def embed(self, texts):
        longest = max((len(t) for t in texts), default=1)
        return super().embed(texts) * (1.0 + longest / 100.0)


def test_embed_each_gives_a_text_the_same_vector_whatever_it_is_embedded_with() -> None:
    embedder = BatchScaledEmbedder(16)
    alone = embed_each(embedder, ["Warsaw"])[0]
    assert not np.allclose(embedder.embed(["Warsaw", "a much longer text"])[0], alone)
    assert np.array_equal(embed_each(embedder, ["Warsaw", "a much longer text"])[0], alone)
    assert embed_each(embedder, []).shape == (0, 16)


class CountingEmbedder(HashEmbedder):
    """A batch-independent embedder that counts its calls."""

    batch_independent = True

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return super().embed(texts)


def test_embed_each_embeds_a_batch_independent_embedders_texts_in_one_call() -> None:
    embedder = CountingEmbedder(16)
    vectors = embed_each(embedder, ["Warsaw", "a much longer text", "Paris"])
    assert embedder.calls == 1
    assert np.array_equal(vectors[2], HashEmbedder(16).embed(["Paris"])[0])
