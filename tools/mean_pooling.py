"""Mean-pooled sentence vectors from the transformer itself, as `SentenceTransformer.encode` gives.

`encode` spends ~1.1 ms a call on bookkeeping (switching 161 modules to eval mode, reading
signatures, moving features) around a 4-7 ms MiniLM pass, and FiF embeds ~4 short texts a
question. For the plain models it supports (a transformer, mean pooling, optional
normalisation, no prompt) `MeanPoolEncoder` runs the same steps itself: the same tokenizer
call, the same batch order (longest first), the same pooling and normalisations, so the
vectors are bit-identical (an integration test holds this against `encode`). Any other
model is encoded by `encode`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

SUPPORTED_MODULES = ("Transformer", "Pooling", "Normalize")


class MeanPoolEncoder:
    """Encode texts in one batch the way `encode(..., normalize_embeddings=True)` would."""

    def __init__(self, model: Any) -> None:
        model.eval()  # once: encode switches to eval mode on every call
        self.tokenizer = model.tokenizer
        self.transformer = model[0].auto_model
        self.max_tokens = model.max_seq_length
        self.normalisations = 1 + sum(type(m).__name__ == "Normalize" for m in model)
        """encode normalises once more after a Normalize module; each pass is repeated."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return the (len(texts), dim) normalised vectors of one batch."""
        import torch
        from torch.nn.functional import normalize

        order = np.argsort([-len(text) for text in texts])  # encode's order inside a batch
        features = self.tokenizer(
            [texts[i] for i in order],
            padding=True,
            truncation=True,
            max_length=self.max_tokens,
            return_tensors="pt",
        )
        with torch.inference_mode():
            tokens = self.transformer(**features).last_hidden_state
            mask = features["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            summed = (tokens * mask).sum(dim=1, dtype=tokens.dtype)
            vectors = summed / torch.clamp(mask.sum(dim=1, dtype=tokens.dtype), min=1e-9)
            for _ in range(self.normalisations):
                vectors = normalize(vectors, p=2, dim=-1)
        out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
        out[order] = vectors.float().numpy()
        return out


def mean_pool_encoder(model: Any) -> MeanPoolEncoder | None:
    """Return a MeanPoolEncoder for a plain mean-pooled model, or None to keep `encode`."""
    names = [type(module).__name__ for module in model]
    if names not in (list(SUPPORTED_MODULES[:2]), list(SUPPORTED_MODULES)):
        return None
    pooling = model[1]
    plain = (
        getattr(pooling, "pooling_mode", None) == "mean"
        and getattr(pooling, "include_prompt", True)
        and not getattr(model, "default_prompt_name", None)
        and not getattr(model, "truncate_dim", None)
        and hasattr(model[0], "auto_model")
    )
    return MeanPoolEncoder(model) if plain else None
