"""A tiny randomly initialised CLIP saved to a folder, so the image path runs without weights."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any


def save_tiny_clip(transformers: Any, folder: Path) -> Path:
    """Save a random CLIP (16-d projections) with a character-level tokenizer; return the folder.

    Args:
        transformers: The transformers module (the caller skips the test without it).
        folder: Where to save; nothing is downloaded.
    """
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
