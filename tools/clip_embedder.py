"""A CLIP-family image+text embedder loaded through transformers from a local folder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tools.errors import MissingDependencyError, ModelUnavailableError, install_hint


class ClipEmbedder:
    """Embed images (whole or cropped regions) and texts into one CLIP space."""

    def __init__(self, path: str, allow_download: bool) -> None:
        if not allow_download and not Path(path).is_dir():
            raise ModelUnavailableError(
                f"image embedder 'clip:{path}': no such local folder (no CLIP model ships in a "
                "PyPI package); download one once, e.g. openai/clip-vit-base-patch32, and give "
                "its folder, or pass --allow-download"
            )
        try:
            from transformers import CLIPModel, CLIPProcessor
        except ImportError as err:
            raise MissingDependencyError(
                f"CLIP needs transformers: {install_hint('clip')}"
            ) from err
        self.model: Any = CLIPModel.from_pretrained(path, local_files_only=not allow_download)
        self.processor: Any = CLIPProcessor.from_pretrained(
            path, local_files_only=not allow_download
        )
        self.model.eval()
        self.model_id = f"clip:{Path(path).name}"
        self.dim = int(self.model.config.projection_dim or 0)
        text_config: Any = self.model.config.text_config
        self.max_tokens = int(text_config.max_position_embeddings)
        """A tokenizer may not know the limit (model_max_length unset); the model does."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts with CLIP's text tower, cut to the model's position limit (77 tokens)."""
        import torch

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        inputs = self.processor(
            text=list(texts),
            return_tensors="pt",
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
        )
        with torch.no_grad():
            vectors = self.model.get_text_features(**inputs)
        return _unit(_projected(vectors))

    def embed_images(
        self, paths: Sequence[str], boxes: Sequence[tuple[int, int, int, int] | None]
    ) -> np.ndarray:
        """Embed images, cropping each to its box when one is given."""
        import torch
        from PIL import Image

        if not paths:
            return np.zeros((0, self.dim), dtype=np.float32)
        images = []
        for path, box in zip(paths, boxes, strict=True):
            with Image.open(path) as opened:  # paths were checked by the builder's ImageGuard
                image = opened.convert("RGB")
            images.append(image.crop(box) if box else image)
        inputs = self.processor(images=images, return_tensors="pt")
        with torch.no_grad():
            vectors = self.model.get_image_features(**inputs)
        return _unit(_projected(vectors))


def _projected(output: Any) -> np.ndarray:
    """Return the projected features: transformers 5 wraps them in `pooler_output`."""
    return np.asarray(getattr(output, "pooler_output", output).numpy())


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = vectors.astype(np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
