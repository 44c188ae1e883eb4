"""Offline MMAPG on the OTT-QA sample with the packaged embedder, against dense single-shot.

The baseline is the eval harness's `dense` system, so the comparison is the one
`fif eval --compare dense,mmapg` reports: MMAPG must find every gold component at least as
often (all-gold@10) without losing more than a point of R@10.
"""

from __future__ import annotations

import logging
import statistics
from pathlib import Path

import pytest

from evals.datasets.questions import EvalExample
from evals.metrics import retrieval_scores
from evals.systems import RunConfig, make_system

pytestmark = pytest.mark.integration
logger = logging.getLogger(__name__)

R10_MARGIN = 0.01
"""MMAPG's R@10 may trail dense single-shot by at most this much (the issue's target)."""
K = 10


def _pooled(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.fmean(r[key] for r in rows), 3) for key in rows[0]}


def test_offline_mmapg_finds_all_gold_at_least_as_often_as_dense(
    sample_index: Path, sample_examples: tuple[EvalExample, ...], record_property
) -> None:
    config = RunConfig(str(sample_index), top_k=K)
    dense_system, mmapg_system = make_system("dense", config), make_system("mmapg", config)
    dense_rows, mmapg_rows = [], []
    for example in sample_examples:
        found = mmapg_system.retrieve(example, want_answer=False)
        assert len(found.ranking) == K and len(set(found.ranking)) == K
        assert found.cost["llm_calls"] == 0
        mmapg_rows.append(retrieval_scores(found.ranking, example.gold))
        baseline = dense_system.retrieve(example, want_answer=False)
        dense_rows.append(retrieval_scores(baseline.ranking, example.gold))
    mmapg, dense = _pooled(mmapg_rows), _pooled(dense_rows)
    record_property("mmapg", mmapg)
    record_property("dense", dense)
    logger.info("MMAPG %s; dense %s", mmapg, dense)
    assert mmapg["AllGold@10"] >= dense["AllGold@10"], (mmapg, dense)
    assert mmapg["R@10"] >= dense["R@10"] - R10_MARGIN, (mmapg, dense)
