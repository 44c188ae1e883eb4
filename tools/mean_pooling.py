"""Mean-pooled sentence vectors from the transformer itself, as `SentenceTransformer.encode` gives.

`encode` spends ~1.1 ms a call on bookkeeping (switching 161 modules to eval mode, reading
signatures, moving features) around a 4-7 ms MiniLM pass, and FiF embeds ~4 short texts a
question. For the plain models it supports (a transformer, mean pooling, optional
normalisation, no prompt) `MeanPoolEncoder` runs the same steps itself: the same tokenizer
call, the same batch order (longest first), the same pooling and normalisations, so the
vectors are bit-identical (an integration test holds this against `encode`). Any other
model is encoded by `encode`.

The transformer pass itself runs as a TorchScript trace when one reproduces it: MiniLM's
eager pass calls ~110 Python modules, and the trace runs the same kernels without them
(6.9 -> 3.3 ms per question on one core, outputs equal at every length and batch
shape). The trace is made on a padded batch of two texts and checked against the eager
pass on it and on one text alone (another shape); a model that does not trace, or whose
trace differs, keeps the eager pass.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from tools.span_pooling import token_batches

logger = logging.getLogger(__name__)

SUPPORTED_MODULES = ("Transformer", "Pooling", "Normalize")
PROBE_TEXTS = ("a probe of the traced pass", "and a longer probe sentence, padded in a batch")
FEATURES = ("input_ids", "attention_mask", "token_type_ids")
"""The transformer inputs a trace takes, in the transformer's positional order."""
SMALL_INPUT_TOKENS = 256
"""Inputs up to this many tokens (a query, a few residual questions) embedded from a worker
thread (the eval runner, `fif serve`, LangGraph's executor) run on one intra-op thread:
torch's pool took 12.4 ms per question there against 6.9 ms on one thread (the main
thread takes 6.0 ms with the pool, so it keeps it); the vectors are bit-identical."""

Features = dict[str, Any]
"""A tokenized batch: FEATURES name -> (batch, tokens) tensor."""


@contextmanager
def intra_op_threads(threads: int | None) -> Iterator[None]:
    """Run torch with `threads` intra-op threads inside the block (None: leave it as is)."""
    import torch

    before = torch.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def embed_batched(
    texts: Sequence[str],
    lengths: Sequence[int],
    encode: Callable[[list[str]], np.ndarray],
    dim: int,
) -> np.ndarray:
    """Encode texts in length-sorted batches of a token budget (`lengths`: their tokens)."""
    out = np.zeros((len(texts), dim), dtype=np.float32)
    if not texts:
        return out
    worker = threading.current_thread() is not threading.main_thread()
    threads = 1 if worker and sum(lengths) <= SMALL_INPUT_TOKENS else None
    with intra_op_threads(threads):
        for batch in token_batches(lengths):
            out[batch] = encode([texts[i] for i in batch])
    return out


def mean_pooled(
    texts: Sequence[str],
    features_of: Callable[[list[str]], Features],
    token_states: Callable[[Features], Any],
    normalisations: int,
) -> np.ndarray:
    """Return one batch's normalised mean-pooled vectors, in encode's order inside the batch."""
    import torch
    from torch.nn.functional import normalize

    order = np.argsort([-len(text) for text in texts])  # encode's order inside a batch
    features = features_of([texts[i] for i in order])
    with torch.inference_mode():
        tokens = token_states(features)
        mask = features["attention_mask"].unsqueeze(-1).to(tokens.dtype)
        summed = (tokens * mask).sum(dim=1, dtype=tokens.dtype)
        vectors = summed / torch.clamp(mask.sum(dim=1, dtype=tokens.dtype), min=1e-9)
        for _ in range(normalisations):
            vectors = normalize(vectors, p=2, dim=-1)
    out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
    out[order] = vectors.float().numpy()
    return out


def trace_states(module: Any, names: Sequence[str]) -> Callable[[Features], Any]:
    """Return the token states function of a traced transformer taking `names` in order."""

    def states(features: Features) -> Any:
        return module(*(features[name] for name in names))["last_hidden_state"]

    return states


class MeanPoolEncoder:
    """Encode texts in one batch the way `encode(..., normalize_embeddings=True)` would."""

    def __init__(self, model: Any) -> None:
        model.eval()  # once: encode switches to eval mode on every call
        self.tokenizer = model.tokenizer
        self.transformer = model[0].auto_model
        self.max_tokens = model.max_seq_length
        self.normalisations = 1 + sum(type(m).__name__ == "Normalize" for m in model)
        """encode normalises once more after a Normalize module; each pass is repeated."""
        self._pass: Callable[[dict[str, Any]], Any] | None = None
        self._tracing = threading.Lock()
        self.trace: tuple[Any, list[str]] | None = None
        """The checked TorchScript module and its inputs' names, once made (to save)."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return the (len(texts), dim) normalised vectors of one batch."""
        return mean_pooled(texts, self.features, self.transformer_pass(), self.normalisations)

    def features(self, texts: list[str]) -> Features:
        """Tokenize one batch as `encode` does: padded to its longest, cut at max_tokens."""
        return dict(
            self.tokenizer(
                texts,
                padding=True,
                truncation=True,
                max_length=self.max_tokens,
                return_tensors="pt",
            )
        )

    def transformer_pass(self) -> Callable[[dict[str, Any]], Any]:
        """Return the token states function: the checked trace, else the eager transformer."""
        with self._tracing:
            if self._pass is None:
                self._pass = self._traced() or self._eager
            return self._pass

    def checked_trace(self) -> tuple[Any, list[str]] | None:
        """Return the checked TorchScript module and its inputs' names (None: eager pass)."""
        self.transformer_pass()
        return self.trace

    def traced(self) -> bool:
        """Tell whether the transformer pass runs as the checked trace."""
        return self.checked_trace() is not None

    def _eager(self, features: dict[str, Any]) -> Any:
        return self.transformer(**features).last_hidden_state

    def _traced(self) -> Callable[[dict[str, Any]], Any] | None:
        """Trace the transformer and check it on the probe batch; None when it differs."""
        import torch

        probe = dict(self.tokenizer(list(PROBE_TEXTS), padding=True, return_tensors="pt"))
        names = [name for name in FEATURES if name in probe]
        if set(names) != set(probe) or names[:2] != list(FEATURES[:2]):
            return None  # inputs the trace's positional order does not cover
        quiet = logging.getLogger("transformers")  # tracing reads config fields it notes
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # trace's deprecation and shape warnings
                module = torch.jit.trace(
                    self.transformer,
                    tuple(probe[name] for name in names),
                    strict=False,
                    check_trace=False,
                )
                traced = trace_states(module, names)
                alone = dict(self.tokenizer([PROBE_TEXTS[0]], return_tensors="pt"))
                same = all(torch.equal(traced(p), self._eager(p)) for p in (probe, alone))
        except Exception as err:  # any failure keeps the eager pass
            logger.info("eager transformer pass: tracing failed (%s)", err)
            return None
        finally:
            quiet.setLevel(level)
        if not same:
            return None
        self.trace = (module, names)
        return traced


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
