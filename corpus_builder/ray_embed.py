"""Embedding on Ray workers (`fif build --ray`): the batches of an in-process run, so its vectors.

int8 kernels scale a pass's activations by its whole padded batch, so a text's vector
depends on the texts it is batched with. The build process therefore plans the batches
exactly as `SentenceTransformerEmbedder.embed` (and `pool_in_context`) would, and each
worker runs whole batches, in that order, through the same model loaded from its local
path: one batch alone makes the same single batch. Embedders whose vectors do not depend on
batching (`hash:`) are cut into plain chunks. The build process keeps writing the index.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from tools.embedders import CONTEXT_TOKENS, ContextEmbedder, Embedder, load_embedder
from tools.ray_cluster import cluster_cpus, import_ray
from tools.span_pooling import ContextRequest, ContextVectors, token_batches

logger = logging.getLogger(__name__)

CHUNK_TEXTS = 64
"""Texts per batch of an embedder whose vectors do not depend on their batch."""
BATCHES_PER_TASK = 4
"""Batches per worker task. A batch holds at most a token budget of padded tokens, so tasks
cost about the same; a few per worker of each 1,024-text chunk of the builder keep every
worker busy to the chunk's end and hide a task's round trip."""

Item = TypeVar("Item")


class EmbedWorker:
    """A Ray actor holding one embedder; it embeds whole batches as it is given them."""

    def __init__(self, spec: str, allow_download: bool) -> None:
        self.embedder = load_embedder(spec, allow_download)

    def embed(self, batches: list[list[str]]) -> list[np.ndarray]:
        """Return each batch's vectors, each batch embedded in one call."""
        return [self.embedder.embed(batch) for batch in batches]

    def embed_in_context(self, batches: list[list[ContextRequest]]) -> list[list[ContextVectors]]:
        """Return each batch's contextual vectors, each batch pooled in one call."""
        embedder = self.embedder
        if not isinstance(embedder, ContextEmbedder):
            raise TypeError(f"{embedder.model_id} cannot pool spans in context")
        return [embedder.embed_in_context(batch) for batch in batches]


def plan_batches(embedder: Embedder, texts: Sequence[str], window: int | None) -> list[list[int]]:
    """Return the batches (indices, in order) an in-process call would run texts in.

    A sentence-transformers model truncates each text to its max length (`window` for a
    contextual pass) and groups the lengths with `token_batches`; any other embedder embeds
    each text alone, so plain chunks do.
    """
    model = getattr(embedder, "model", None)
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return [list(range(start, min(start + CHUNK_TEXTS, len(texts))))
                for start in range(0, len(texts), CHUNK_TEXTS)]  # fmt: skip
    limit = window or model.max_seq_length  # type: ignore[union-attr]
    ids = tokenizer(list(texts), truncation=True, max_length=limit)["input_ids"]
    return token_batches([len(row) for row in ids])


def group_batches(
    batches: list[list[Item]], per_task: int = BATCHES_PER_TASK
) -> list[list[list[Item]]]:
    """Cut the batches, in order, into tasks of `per_task` whole batches."""
    return [batches[start : start + per_task] for start in range(0, len(batches), per_task)]


class RayEmbedder:
    """An Embedder whose passes run on Ray workers; vectors equal the in-process ones."""

    def __init__(self, local: Embedder, workers: list[Any]) -> None:
        self.local = local
        self.model_id = local.model_id
        self.dim = local.dim
        self.workers = workers

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return the texts' unit vectors, embedded on the workers batch by batch."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        batches = plan_batches(self.local, texts, None)
        results = self._run("embed", [[texts[i] for i in batch] for batch in batches])
        for batch, vectors in zip(batches, results, strict=True):
            out[batch] = vectors
        return out

    def _run(self, method: str, inputs: list[list[Item]]) -> list[Any]:
        """Send the batches, grouped into tasks, to the workers; return their results in order."""
        from ray.util import ActorPool

        def call(worker: Any, task: list[list[Item]]) -> Any:
            return getattr(worker, method).remote(task)

        pool = ActorPool(self.workers)
        return [result for group in pool.map(call, group_batches(inputs)) for result in group]


class RayContextEmbedder(RayEmbedder):
    """A RayEmbedder over a model that pools spans in context (contextual sentences)."""

    def embed_in_context(self, requests: Sequence[ContextRequest]) -> list[ContextVectors]:
        """Return each request's contextual vectors, pooled on the workers batch by batch."""
        texts = [request.text for request in requests]
        batches = plan_batches(self.local, texts, CONTEXT_TOKENS)
        inputs = [[requests[i] for i in batch] for batch in batches]
        results = self._run("embed_in_context", inputs)
        out: list[ContextVectors | None] = [None] * len(requests)
        for batch, pooled in zip(batches, results, strict=True):
            for i, vectors in zip(batch, pooled, strict=True):
                out[i] = vectors
        return [vectors for vectors in out if vectors is not None]


def ray_embedder(spec: str, allow_download: bool) -> RayEmbedder:
    """Start one embedding worker per cluster CPU and return the embedder that uses them.

    Each worker loads the model itself, from its local path (packaged models: the package's
    folder; with `allow_download` False nothing is fetched), while this process loads its
    own copy to plan batches.
    """
    ray = import_ray()
    actor = ray.remote(num_cpus=1)(EmbedWorker)
    workers = [actor.remote(spec, allow_download) for _ in range(cluster_cpus())]
    logger.info("embedding %s on %d Ray workers", spec, len(workers))
    local = load_embedder(spec, allow_download)
    kind = RayContextEmbedder if isinstance(local, ContextEmbedder) else RayEmbedder
    return kind(local, workers)
