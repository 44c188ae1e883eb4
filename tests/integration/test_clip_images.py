"""The image path with a tiny random CLIP model made locally: images and regions get vectors."""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import pytest

from corpus_builder.build import BuildOptions, build
from tools.corpus_index import CorpusIndex
from tools.index import ChromaLayers

pytestmark = pytest.mark.integration

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini_bundle"
IMAGE_NODES = ["warsaw::i0", *(f"warsaw::i0::o{n}" for n in range(4))]


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Save a randomly initialised CLIP with a character-level tokenizer (nothing downloaded)."""
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("tiny_clip")
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1}
    for char in string.ascii_letters + string.digits + string.punctuation:
        vocab.setdefault(char, len(vocab))
        vocab.setdefault(f"{char}</w>", len(vocab))
    tokenizer = transformers.CLIPTokenizer(vocab=vocab, merges=[])
    images = transformers.CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
    )
    config = transformers.CLIPConfig(
        text_config={
            "vocab_size": len(vocab),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "max_position_embeddings": 77,
            "bos_token_id": 0,
            "eos_token_id": 1,
            "pad_token_id": 1,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        projection_dim=16,
    )
    transformers.CLIPModel(config).save_pretrained(folder)
    transformers.CLIPProcessor(image_processor=images, tokenizer=tokenizer).save_pretrained(folder)
    return folder


def test_images_and_regions_are_indexed_by_the_image_embedder(
    tiny_clip: Path, tmp_path: Path
) -> None:
    options = BuildOptions(image_embedder=f"clip:{tiny_clip}", show_progress=False)
    manifest = build(MINI, tmp_path / "index", options)
    assert manifest.complete and manifest.images_indexed_via == "image-embedder"
    assert manifest.image_embedder is not None
    assert (manifest.image_embedder.model_id, manifest.image_embedder.dim) == (
        f"clip:{tiny_clip.name}",
        16,
    )
    layers = ChromaLayers.open(tmp_path / "index", None, manifest.name)
    collection = layers.collection("image")
    assert sorted(collection.get(include=[])["ids"]) == IMAGE_NODES
    vectors = layers.vectors("image", IMAGE_NODES)
    assert all(v.shape == (16,) for v in vectors.values())
    assert np.allclose([np.linalg.norm(v) for v in vectors.values()], 1.0, atol=1e-5)
    assert not np.allclose(vectors["warsaw::i0::o0"], vectors["warsaw::i0::o3"])  # yellow vs red

    index = CorpusIndex.open(tmp_path / "index")
    assert index.image_embedder is not None
    hits = index.layers.query("image", index.embed_query("flag of Warsaw", space="image"), 10)
    assert sorted(h.node_id for h in hits) == IMAGE_NODES
    assert {h.component_id for h in hits} == {"warsaw::i0"}

    again = build(MINI, tmp_path / "index", options)
    assert again.embedding["image_unchanged"] == 5 and "image_written" not in again.embedding
