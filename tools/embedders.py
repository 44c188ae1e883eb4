"""Embedders behind one interface, loaded in one place for the builder and the agent.

A spec string names the backend and model: `onnx:<packaged name or local path>[#int8][@N]`
(ONNX Runtime, tools.onnx_encoder), `st:<...>[#int8][@N]` (sentence-transformers; precision,
and N = max input tokens), `clip:<local path>` (images and text in CLIP space), `hash:<dim>`
(tests). Weights are never downloaded unless `allow_download=True`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tools.errors import ConfigError, MissingDependencyError, ModelUnavailableError
from tools.mean_pooling import embed_batched, mean_pool_encoder
from tools.model_files import PACKAGED_MODELS, resolve_model_path
from tools.onnx_encoder import load_onnx_encoder
from tools.span_pooling import ContextRequest, ContextVectors, pool_in_context

logger = logging.getLogger(__name__)

TORCH_INT8_EMBEDDER = "st:all-MiniLM-L6-v2#int8@128"
"""torch's int8 dynamic quantisation, 128-token inputs (MiniLM's training length)."""
DEFAULT_TEXT_EMBEDDER = "onnx:all-MiniLM-L6-v2#int8@128"
"""ONNX Runtime, int8 scaled per token (tools.onnx_encoder): vectors independent of their
batch, ~2x the torch int8 encoder's texts/s, and the same R@10 on the dev bundles."""
INT8_SCHEME = "int8pc"
"""The int8 scheme in model ids: per-channel weights. `fif build` re-embeds an index built
with the former per-matrix scheme (`#int8`); searching one first logs a warning."""


class Embedder(Protocol):
    """Map texts to unit-length vectors."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return a (len(texts), dim) float32 array of normalised embeddings."""
        ...


def embed_each(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Embed texts, no vector depending on the others: one call if `batch_independent`.

    Else a pass each: torch's int8 kernels scale activations by the whole padded batch.
    """
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    if getattr(embedder, "batch_independent", False):
        return np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    return np.vstack([embedder.embed([text]) for text in texts])


@runtime_checkable
class ContextEmbedder(Embedder, Protocol):
    """An embedder that also pools parts of a text from one pass over the whole text."""

    def embed_in_context(self, requests: Sequence[ContextRequest]) -> list[ContextVectors]:
        """Return each text's vector and contextual vectors of its spans."""
        ...


CONTEXT_TOKENS = 256
"""Window of a contextual pass (a paragraph); sentences past it are embedded alone."""


@runtime_checkable
class ImageEmbedder(Embedder, Protocol):
    """An embedder whose space also holds images (CLIP family)."""

    def embed_images(
        self, paths: Sequence[str], boxes: Sequence[tuple[int, int, int, int] | None]
    ) -> np.ndarray:
        """Return normalised embeddings of images (cropped to boxes where given)."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class SentenceTransformerEmbedder:
    """A sentence-transformers model, optionally with int8 dynamic quantisation of its Linears."""

    def __init__(
        self,
        model_id: str,
        path: str,
        precision: str,
        max_tokens: int | None,
        allow_download: bool,
    ) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise MissingDependencyError(
                "text embedders need sentence-transformers: pip install sentence-transformers"
            ) from err
        try:
            with weights_bar_hidden():
                model = SentenceTransformer(path, device="cpu", local_files_only=not allow_download)
        except OSError as err:
            raise ModelUnavailableError(
                f"embedder {model_id!r}: cannot load {path!r} offline ({err}); give a local "
                "model folder, or pass --allow-download to fetch it from the hub"
            ) from err
        if precision == "int8":
            model = _quantise_int8(model)
        if max_tokens:
            model.max_seq_length = max_tokens
        self.model = model
        self.lean = mean_pool_encoder(model)
        self.model_id = model_id
        dimension = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        self.dim = int(dimension() or 0)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Encode texts in length-sorted batches of a token budget; returns unit vectors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        limit = self.model.max_seq_length
        ids = self.model.tokenizer(list(texts), truncation=True, max_length=limit)["input_ids"]
        return embed_batched(texts, [len(row) for row in ids], self._encode, self.dim)

    def _encode(self, texts: list[str]) -> np.ndarray:
        """Encode one batch, through MeanPoolEncoder when the model is a plain one."""
        if self.lean is not None:
            return self.lean.encode(texts)
        return np.asarray(
            self.model.encode(
                texts,
                batch_size=len(texts),
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        )

    def embed_in_context(self, requests: Sequence[ContextRequest]) -> list[ContextVectors]:
        """Pool spans from one pass over each text, with a CONTEXT_TOKENS window."""
        transformer = self.model[0].auto_model
        return pool_in_context(self.model.tokenizer, transformer, requests, CONTEXT_TOKENS)


@contextmanager
def weights_bar_hidden() -> Iterator[None]:
    """Hide transformers' "Loading weights" progress bar inside the block (a CLI's stderr)."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()


def _quantise_int8(model: Any) -> Any:
    """Quantise the Linears' weights per output channel; activations per batch, at run time.

    One scale per output channel, not per matrix, keeps MiniLM's vectors at cosine 0.98 to
    fp32 (0.94 with one scale per matrix) at the same speed.
    """
    import torch

    qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch points eager quantisation users to torchao
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear: qconfig})


class HashEmbedder:
    """A deterministic bag-of-words embedder for tests: shared words mean higher similarity."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.model_id = f"hash:{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Hash lowercased word tokens into signed buckets and normalise."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] % 2 else -1.0
        out[np.all(out == 0, axis=1), 0] = 1.0
        return _normalise(out)

    def embed_in_context(self, requests: Sequence[ContextRequest]) -> list[ContextVectors]:
        """Embed each span as its prefix plus its own words (no real context, for tests)."""
        results = []
        for request in requests:
            parts = [
                f"{request.text[: request.prefix_chars]} {request.text[begin:end]}"
                for begin, end in request.spans
            ]
            vectors = self.embed([request.text, *parts])
            results.append(ContextVectors(vectors[0], tuple(vectors[1:])))
        return results


def st_model(model: str) -> tuple[str, str, int | None, str]:
    """Parse `name[#precision][@tokens]`: (name, precision, max tokens, the model id).

    The model id names what the vectors depend on (the int8 scheme included), so it keys
    anything saved from the model (an index's vectors, a saved query encoder).
    """
    model, _, tokens = model.partition("@")
    name, _, precision = model.partition("#")
    precision = precision or "fp32"
    if precision not in ("fp32", "int8"):
        raise ConfigError(f"embedder precision {precision!r}: use #fp32 or #int8")
    if tokens and not tokens.isdigit():
        raise ConfigError(f"embedder max tokens {tokens!r}: use @<number>, e.g. @128")
    scheme = INT8_SCHEME if precision == "int8" else precision
    model_id = f"st:{name}#{scheme}" + (f"@{tokens}" if tokens else "")
    return name, precision, int(tokens) if tokens else None, model_id


def _load_st(model: str, allow_download: bool) -> Embedder:
    name, precision, tokens, model_id = st_model(model)
    path = resolve_model_path(name)
    if not allow_download and name not in PACKAGED_MODELS and not Path(path).is_dir():
        raise ModelUnavailableError(
            f"embedder 'st:{model}': {path!r} is neither a packaged model "
            f"({', '.join(PACKAGED_MODELS)}) nor a local folder; pass --allow-download to fetch it"
        )
    return SentenceTransformerEmbedder(model_id, path, precision, tokens, allow_download)


def _load_hash(model: str, allow_download: bool) -> Embedder:
    try:
        return HashEmbedder(int(model))
    except ValueError as err:
        raise ConfigError(f"hash embedder needs a dimension, e.g. hash:64 (got {model!r})") from err


def _load_clip(model: str, allow_download: bool) -> Embedder:
    from tools.clip_embedder import ClipEmbedder

    return ClipEmbedder(model, allow_download)


EMBEDDER_BACKENDS: dict[str, Callable[[str, bool], Embedder]] = {
    "st": _load_st,
    "onnx": load_onnx_encoder,
    "hash": _load_hash,
    "clip": _load_clip,
}


def load_embedder(spec: str, allow_download: bool = False) -> Embedder:
    """Return the one cached embedder for a spec such as `st:all-MiniLM-L6-v2#int8`."""
    # One key per spec: `load_embedder(s)` and `load_embedder(s, False)` must share a model.
    return _cached_embedder(spec, allow_download)


@lru_cache(maxsize=8)
def _cached_embedder(spec: str, allow_download: bool) -> Embedder:
    backend, sep, model = spec.partition(":")
    if not sep or backend not in EMBEDDER_BACKENDS:
        raise ConfigError(
            f"unknown embedder spec {spec!r}; known backends: "
            f"{', '.join(f'{b}:' for b in EMBEDDER_BACKENDS)}"
        )
    logger.info("loading embedder %s", spec)
    return EMBEDDER_BACKENDS[backend](model, allow_download)
