"""A packaged sentence-transformers model run by ONNX Runtime: one encoder for builds and queries.

Spec `onnx:<packaged name or local folder>[#int8|#fp32][@N]`. The transformer is exported
from the model's own folder (`tools.onnx_export`, torch) the first time a process needs it
and cached under $FIF_CACHE_DIR (else ~/.cache/fif); every later process, the query path
included, loads the file with ONNX Runtime and the model's `tokenizer.json` with the
`tokenizers` package, importing neither torch nor transformers. Mean pooling and
normalisation are numpy, as sentence-transformers does them.

Each text's vector is independent of its batch: `#int8` scales each token's activations on
its own (not by the batch, as torch's dynamic quantisation does), padding is masked out of
attention and pooling. So a build embeds in large length-sorted batches, and a query step
embeds all its texts in one call (`batch_independent`).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tools.errors import ConfigError, MissingDependencyError, ModelUnavailableError
from tools.model_files import cache_root, resolve_model_path, saved_folder, weights_file
from tools.span_pooling import ContextRequest, ContextVectors, pool_request, token_batches

logger = logging.getLogger(__name__)

FORMAT = 1
"""Bumped when the exported graph changes, so older cached files are not used."""
MODEL_FILE = "model.onnx"
THREADS_ENV = "FIF_ONNX_THREADS"
"""Intra-op threads of a build's encoder session (default: every core)."""
QUERY_THREADS = 1
"""Intra-op threads of a query encoder: a query's few short texts ran faster on one thread
(3.8 against 5.3 ms a question from a worker thread), and the other core stays free."""
PRECISIONS = {"int8": "int8row", "fp32": "fp32"}
"""Precision in the spec -> its name in the model id (int8 is scaled per row)."""
ONE_BY_ONE = 16
"""Calls with at most this many texts (a query step's) are tokenised one text at a time:
`encode_batch` wakes the tokenizer's thread pool, 0.07 ms a call on a quiet machine but
~0.7 ms inside a busy run; the tokens are the same either way."""
CONTEXT_TOKENS = 256
"""Window of a contextual pass, as `tools.embedders.CONTEXT_TOKENS`."""


def onnx_spec(model: str) -> tuple[str, str, int | None, str]:
    """Parse `name[#int8|#fp32][@tokens]`: (name, precision, max tokens, the model id)."""
    model, _, tokens = model.partition("@")
    name, _, precision = model.partition("#")
    precision = precision or "int8"
    if precision not in PRECISIONS:
        raise ConfigError(f"onnx embedder precision {precision!r}: use #int8 or #fp32")
    if tokens and not tokens.isdigit():
        raise ConfigError(f"embedder max tokens {tokens!r}: use @<number>, e.g. @128")
    model_id = f"onnx:{name}#{PRECISIONS[precision]}" + (f"@{tokens}" if tokens else "")
    return name, precision, int(tokens) if tokens else None, model_id


def load_onnx_encoder(
    model: str, allow_download: bool = False, threads: int | None = None
) -> OnnxEncoder:
    """Return the encoder of an `onnx:` spec's model part, exporting its graph if not cached.

    `threads`: intra-op threads (default: $FIF_ONNX_THREADS, else every core).
    """
    name, precision, tokens, model_id = onnx_spec(model)
    folder = Path(resolve_model_path(name))
    if not (folder / "tokenizer.json").is_file():
        raise ModelUnavailableError(
            f"embedder 'onnx:{model}': {folder} is neither a packaged model nor a local "
            "sentence-transformers folder with a tokenizer.json"
        )
    _check_mean_pooled(folder)
    return OnnxEncoder(model_id, folder, cached_graph(folder, precision), tokens, threads)


def _check_mean_pooled(folder: Path) -> None:
    """Refuse a sentence-transformers folder whose pooling is not the mean this encoder does."""
    import json

    config = folder / "1_Pooling" / "config.json"
    pooling = json.loads(config.read_text(encoding="utf-8")) if config.is_file() else {}
    if not pooling.get("pooling_mode_mean_tokens", True):
        raise ConfigError(f"onnx:{folder}: its pooling is not the mean; use st:{folder}")


def cached_graph(folder: Path, precision: str) -> Path:
    """Return the cached ONNX file of a model folder and precision, exporting it if absent.

    The key holds the weights file's path, size and time, so changed weights are exported
    again; the file is written beside its place and renamed in, whole.
    """
    weights = weights_file(folder) or folder
    stat = weights.stat()
    key = "\x1f".join(map(str, (FORMAT, precision, weights, stat.st_size, stat.st_mtime_ns)))
    target = cache_root() / "onnx-encoders" / hashlib.sha256(key.encode()).hexdigest()[:20]
    if (target / MODEL_FILE).is_file():
        return target / MODEL_FILE
    with saved_folder(target) as staging:
        _export(folder, precision, staging)
    return target / MODEL_FILE


def _export(folder: Path, precision: str, staging: Path) -> None:
    from tools.onnx_export import export_transformer, quantise_rows

    try:
        import onnx  # noqa: F401  (torch.onnx writes through it)
        import torch  # noqa: F401
    except ImportError as err:
        raise MissingDependencyError(
            f"exporting {folder} to ONNX needs torch and onnx: pip install torch onnx"
        ) from err
    logger.info("exporting %s to ONNX (%s), once", folder, precision)
    plain = staging / ("fp32.onnx" if precision == "int8" else MODEL_FILE)
    export_transformer(folder, plain)
    if precision == "int8":
        quantise_rows(plain, staging / MODEL_FILE)
        plain.unlink()


class OnnxEncoder:
    """Embed texts with an exported transformer, mean-pooled and normalised in numpy."""

    batch_independent = True
    """A text's vector does not depend on the other texts of the call."""

    def __init__(
        self,
        model_id: str,
        folder: Path,
        graph: Path,
        max_tokens: int | None,
        threads: int | None = None,
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self.model_id = model_id
        self.max_tokens = max_tokens or _model_max_tokens(folder)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)
        self.window = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.window.no_padding()
        self.window.enable_truncation(max_length=CONTEXT_TOKENS)
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        threads = threads or int(os.environ.get(THREADS_ENV) or os.cpu_count() or 1)
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # idle pool threads sleep: spinning ones took the cores from the search after a query
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = onnxruntime.InferenceSession(
            str(graph), options, providers=["CPUExecutionProvider"]
        )
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.dim = int(self.session.get_outputs()[0].shape[-1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return unit vectors; identical texts are embedded once, in length-sorted batches."""
        unique = list(dict.fromkeys(texts))
        encodings = self.encodings(unique)
        vectors = np.zeros((len(unique), self.dim), dtype=np.float32)
        for batch in token_batches([len(e.ids) for e in encodings]):
            states, mask = self._states([encodings[i] for i in batch])
            summed = (states * mask[..., None]).sum(axis=1)
            vectors[batch] = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        row = {text: i for i, text in enumerate(unique)}
        return vectors[[row[text] for text in texts]]

    def encodings(self, texts: Sequence[str]) -> list[Any]:
        """Return each text's tokens (`tokenizers` encodings), truncated to max_tokens."""
        if len(texts) <= ONE_BY_ONE:
            return [self.tokenizer.encode(text) for text in texts]
        return list(self.tokenizer.encode_batch(list(texts)))

    def embed_in_context(self, requests: Sequence[ContextRequest]) -> list[ContextVectors]:
        """Pool spans from one pass over each text, with a CONTEXT_TOKENS window."""
        encodings = self.window.encode_batch([request.text for request in requests])
        results: list[ContextVectors | None] = [None] * len(requests)
        for batch in token_batches([len(e.ids) for e in encodings]):
            states, mask = self._states([encodings[i] for i in batch])
            for row, i in enumerate(batch):
                offsets = np.zeros((mask.shape[1], 2), dtype=np.int64)
                offsets[: len(encodings[i].offsets)] = encodings[i].offsets
                results[i] = pool_request(states[row], mask[row] > 0, offsets, requests[i])
        return [r for r in results if r is not None]

    def _states(self, encodings: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Run one batch padded to its longest: (token states, float mask)."""
        tokens = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), tokens), dtype=np.int64)
        types, mask = np.zeros_like(ids), np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            types[row, : len(encoding.ids)] = encoding.type_ids
            mask[row, : len(encoding.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        states = self.session.run(None, {name: feeds[name] for name in self.inputs})[0]
        return np.asarray(states, dtype=np.float32), mask.astype(np.float32)


def _model_max_tokens(folder: Path) -> int:
    """Return the sentence-transformers folder's max_seq_length (512 if it names none)."""
    import json

    config = folder / "sentence_bert_config.json"
    if config.is_file():
        return int(json.loads(config.read_text(encoding="utf-8")).get("max_seq_length", 512))
    return 512
