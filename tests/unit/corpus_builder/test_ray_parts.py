"""The parts of `--ray` that run without a cluster: batch plans, report merging, options."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import pytest

from corpus_builder.ray_embed import (
    CHUNK_TEXTS,
    EmbedWorker,
    RayContextEmbedder,
    RayEmbedder,
    group_batches,
    plan_batches,
)
from corpus_builder.ray_parse import merge_report
from graph_agent.build_options import BuildChoices, build_options
from state.corpus import IngestReport
from tools.embedders import HashEmbedder
from tools.errors import MissingDependencyError
from tools.ray_cluster import RayTarget, import_ray, ray_target
from tools.span_pooling import ContextRequest, token_batches

TEXTS = [f"text {i} " + "word " * (i % 7) for i in range(600)]


class FakeTokenizer:
    """Tokens: one per character, truncated as a tokenizer would."""

    def __call__(self, texts: list[str], truncation: bool, max_length: int) -> dict[str, Any]:
        return {"input_ids": [list(text)[:max_length] for text in texts]}


class FakeModel:
    tokenizer = FakeTokenizer()
    max_seq_length = 12


class FakeTransformerEmbedder(HashEmbedder):
    """A hash embedder that plans batches as a sentence-transformers model does."""

    model = FakeModel()


def test_a_transformer_plan_is_the_batches_of_an_in_process_call() -> None:
    embedder = FakeTransformerEmbedder(16)
    assert plan_batches(embedder, TEXTS, None) == token_batches([min(len(t), 12) for t in TEXTS])
    assert plan_batches(embedder, TEXTS, 40) == token_batches([min(len(t), 40) for t in TEXTS])


def test_an_embedder_that_ignores_batches_is_cut_into_chunks_in_order() -> None:
    plan = plan_batches(HashEmbedder(16), TEXTS, None)
    assert [i for batch in plan for i in batch] == list(range(len(TEXTS)))
    assert max(len(batch) for batch in plan) == CHUNK_TEXTS


@pytest.mark.parametrize(("batches", "tasks"), [(0, 0), (1, 1), (4, 1), (5, 2), (9, 3)])
def test_tasks_hold_whole_batches_in_order(batches: int, tasks: int) -> None:
    planned = [[f"{n}:{i}" for i in range(n + 1)] for n in range(batches)]
    grouped = group_batches(planned, per_task=4)
    assert len(grouped) == tasks
    assert [batch for task in grouped for batch in task] == planned
    assert all(1 <= len(task) <= 4 for task in grouped)


def run_here(self: RayEmbedder, method: str, inputs: list[list[Any]]) -> list[Any]:
    """Stand in for the workers: run each group on a local EmbedWorker."""
    worker = EmbedWorker("hash:16", False)
    return [out for group in group_batches(inputs) for out in getattr(worker, method)(group)]


def test_vectors_come_back_to_their_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RayEmbedder, "_run", run_here)
    local = FakeTransformerEmbedder(16)
    local.model_id = "hash:16"
    spread = RayEmbedder(local, workers=[])
    assert (spread.model_id, spread.dim) == (local.model_id, local.dim)
    assert np.array_equal(spread.embed(TEXTS), local.embed(TEXTS))


def test_contextual_vectors_come_back_to_their_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RayEmbedder, "_run", run_here)
    local = FakeTransformerEmbedder(16)
    requests = [ContextRequest(text, ((0, 4), (5, len(text)))) for text in TEXTS[:50]]
    got = RayContextEmbedder(local, workers=[]).embed_in_context(requests)
    want = local.embed_in_context(requests)
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        assert np.array_equal(mine.text, theirs.text)
        assert all(np.array_equal(a, b) for a, b in zip(mine.spans, theirs.spans, strict=True))


def test_file_reports_merge_in_order_with_ocr_counts_summed() -> None:
    report = IngestReport()
    for n in range(3):
        part = IngestReport(ocr={"jobs": 2, "pages": 1, "seconds": 0.5})
        part.skip(f"file{n}.pdf", "encrypted")
        for target in range(9):
            part.unresolved(f"file{n}.pdf", f"note {target}")
        merge_report(report, part)
    assert [s.where for s in report.skipped] == ["file0.pdf", "file1.pdf", "file2.pdf"]
    assert report.ocr == {"jobs": 6, "pages": 3, "cached": 0, "failed": 0, "seconds": 1.5}
    assert report.unresolved_links == 27 and len(report.unresolved_examples) == 20


def test_ray_options_name_a_cluster_only_when_asked() -> None:
    assert ray_target(False) is None and ray_target(True) == RayTarget()
    assert build_options(BuildChoices()).ray is None
    assert build_options(BuildChoices(ray=True)).ray == RayTarget()


def test_a_target_joins_a_cluster_when_named_or_in_ray_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert not RayTarget().joins() and RayTarget("ray://head:10001").joins()
    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    assert RayTarget().joins()


def test_a_missing_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_ray(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(MissingDependencyError, match=r"\.\[ray\]"):
        import_ray()
