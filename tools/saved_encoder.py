"""The query encoder saved from its checked trace, loaded without sentence-transformers.

Importing sentence-transformers (transformers, scikit-learn, scipy) took 8.8 s of a 14.6 s
`fif ask` on this machine, and a query needs none of it: its tokenizer is the Rust
`tokenizers` one that transformers wraps, and its transformer pass is MeanPoolEncoder's
checked TorchScript trace. The first process that loads a plain model the slow way saves
both to the cache folder ($FIF_CACHE_DIR, else ~/.cache/fif), with the vectors of a few
probe texts. A later process loads them, encodes the probes again and uses the saved
encoder only when every probe vector is bit-identical to the saved one; anything else
(no cache, another torch, other weights, a damaged file) loads the model the slow way.
The cache is keyed by the spec, the model id, the torch version and the weights file, so a
changed model is never answered from an old trace; a change to how vectors are pooled
bumps FORMAT.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tools.embedders import Embedder, load_embedder, resolve_model_path, st_model
from tools.errors import ConfigError, MissingDependencyError
from tools.mean_pooling import PROBE_TEXTS, Features, embed_batched, mean_pooled, trace_states
from tools.model_files import cache_root, saved_folder, weights_file
from tools.onnx_encoder import QUERY_THREADS, load_onnx_encoder

logger = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when the saved files change, so older saves are ignored."""
CHECK_TEXTS = (
    *PROBE_TEXTS,
    "Çelik Zenica's 1998–99 season: 2-1 on aggregate",
    "hired",
    " ".join(["a very long table row"] * 60),  # past any model's token limit: truncation
)
"""Texts whose vectors must come back bit-identical before a saved encoder is used."""
MODULE_FILE, TOKENIZER_FILE, META_FILE = "encoder.pt", "tokenizer.json", "encoder.json"


@lru_cache(maxsize=8)
def query_embedder(spec: str) -> Embedder:
    """Return the embedder for an index's queries: the saved encoder of `spec`, else its model.

    Loading the model the slow way saves its encoder for the next process.
    """
    if spec.startswith("onnx:"):  # loads without torch; one thread (QUERY_THREADS)
        return load_onnx_encoder(spec.partition(":")[2], threads=QUERY_THREADS)
    weights = weights_of(spec)
    if weights is None:
        return load_embedder(spec)
    folder = encoder_folder(spec, weights)
    saved = load_query_encoder(folder)
    if saved is not None:
        return saved
    embedder = load_embedder(spec)
    save_query_encoder(embedder, folder)
    return embedder


def weights_of(spec: str) -> Path | None:
    """Return the weights file of a sentence-transformers spec's model (None otherwise)."""
    backend, _, model = spec.partition(":")
    if backend != "st":
        return None
    try:
        folder = Path(resolve_model_path(st_model(model)[0]))
    except (ConfigError, MissingDependencyError):
        return None
    return weights_file(folder)


def encoder_folder(spec: str, weights: Path) -> Path:
    """Return the cache folder of an st: spec's encoder with these weights, under this torch.

    The key holds the model id (its int8 scheme), the torch version and the weights file's
    path, size and time, so no change to what the vectors depend on reuses an old save.
    """
    import torch

    stat = weights.stat()
    model_id = st_model(spec.partition(":")[2])[3]
    parts = [str(FORMAT), spec, model_id, torch.__version__, str(weights), str(stat.st_size)]
    key = "\x1f".join([*parts, str(stat.st_mtime_ns)])
    return cache_root() / "query-encoders" / hashlib.sha256(key.encode()).hexdigest()[:20]


class SavedQueryEncoder:
    """Embed queries with a saved trace and tokenizer, as the model's lean encoder does."""

    def __init__(self, tokenizer: Any, module: Any, meta: dict[str, Any]) -> None:
        self.tokenizer = tokenizer
        self.names: list[str] = list(meta["inputs"])
        self._states = trace_states(module, self.names)
        self.normalisations = int(meta["normalisations"])
        self.model_id: str = meta["model_id"]
        self.dim = int(meta["dim"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Encode texts in length-sorted batches of a token budget; returns unit vectors."""
        lengths = [sum(e.attention_mask) for e in self.tokenizer.encode_batch(list(texts))]
        return embed_batched(texts, lengths, self._encode, self.dim)

    def _encode(self, texts: list[str]) -> np.ndarray:
        return mean_pooled(texts, self._features, self._states, self.normalisations)

    def _features(self, texts: list[str]) -> Features:
        import torch

        encodings = self.tokenizer.encode_batch(texts)
        fields = {
            "input_ids": "ids",
            "attention_mask": "attention_mask",
            "token_type_ids": "type_ids",
        }
        return {
            name: torch.tensor([getattr(e, fields[name]) for e in encodings], dtype=torch.long)
            for name in self.names
        }


def save_query_encoder(embedder: Embedder, folder: Path) -> bool:
    """Save an embedder's traced lean encoder (MeanPoolEncoder) to `folder`; False if none.

    The files are written to a temporary folder beside it and renamed into place, so a
    reader never sees half a save and two processes saving at once leave one whole copy.
    """
    import torch

    lean = getattr(embedder, "lean", None)
    trace = lean.checked_trace() if lean is not None else None
    if lean is None or trace is None:
        return False
    module, names = trace
    hf_tokenizer = lean.tokenizer
    meta = {
        "format": FORMAT,
        "model_id": embedder.model_id,
        "dim": embedder.dim,
        "inputs": names,
        "normalisations": lean.normalisations,
        "max_tokens": lean.max_tokens,
        "pad": [hf_tokenizer.pad_token_id, hf_tokenizer.pad_token, hf_tokenizer.pad_token_type_id],
        "check": embedder.embed(list(CHECK_TEXTS)).tolist(),
    }
    try:
        with saved_folder(folder) as staging:
            torch.jit.save(module, str(staging / MODULE_FILE))
            tokenizer = hf_tokenizer.backend_tokenizer.to_str()
            (staging / TOKENIZER_FILE).write_text(tokenizer, encoding="utf-8")
            (staging / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    except OSError as err:  # a read-only home: every process loads the slow way
        logger.info("query encoder not saved to %s: %s", folder, err)
        return False
    return True


@contextmanager
def c_stderr_silenced() -> Iterator[None]:
    """Send what C/C++ code writes to file descriptor 2 to /dev/null inside the block.

    Python's warning filters cannot reach a notice that torch's C++ side prints itself.
    """
    sys.stderr.flush()
    saved, sink = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(sink)


def load_query_encoder(folder: Path) -> SavedQueryEncoder | None:
    """Load a saved encoder and check it on CHECK_TEXTS; None if absent, stale or different."""
    if not (folder / META_FILE).is_file():
        return None
    try:
        import torch
        from tokenizers import Tokenizer

        meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT:
            return None
        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        pad_id, pad_token, pad_type_id = meta["pad"]
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=int(meta["max_tokens"]))
        tokenizer.enable_padding(pad_id=pad_id, pad_token=pad_token, pad_type_id=pad_type_id)
        with c_stderr_silenced():  # torch's C++ notice that quantized tensors are deprecated
            module = torch.jit.load(str(folder / MODULE_FILE))
        encoder = SavedQueryEncoder(tokenizer, module, meta)
        same = np.array_equal(
            encoder.embed(list(CHECK_TEXTS)), np.asarray(meta["check"], np.float32)
        )
    except Exception as err:  # any damage means the slow, sure path
        logger.info("saved query encoder in %s not used: %s", folder, err)
        return None
    if not same:
        logger.info("saved query encoder in %s not used: its vectors differ", folder)
        return None
    return encoder
