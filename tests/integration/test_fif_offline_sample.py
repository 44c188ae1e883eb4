"""Offline FiF on the OTT-QA sample against dense single-shot, and `fif ask`/`fif replay`."""

from __future__ import annotations

import json
import logging
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, NotRequired, get_origin, get_type_hints

import pytest

from evals.datasets.questions import EvalExample
from evals.metrics import retrieval_scores
from graph_agent.api import ask
from state.fif_context import FiFContext
from state.fif_state import Found, StepRecord, Strategy
from tools.corpus_index import open_index
from tools.search import dense_search

pytestmark = pytest.mark.integration
logger = logging.getLogger(__name__)

K = 10
MARGIN = 0.05
"""FiF's R@10 may trail dense single-shot by at most this much on the sample."""
FIF = Path(sys.executable).parent / "fif"


def _pooled(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.fmean(r[key] for r in rows), 3) for key in rows[0]}


def required(record: type) -> set[str]:
    """Return a TypedDict's required keys.

    `__required_keys__` misses `NotRequired` under postponed annotations (the state module
    uses them), so the resolved hints are read instead.
    """
    hints = get_type_hints(record, include_extras=True)
    return {key for key, hint in hints.items() if get_origin(hint) is not NotRequired}


def assert_step_is_complete(step: dict[str, Any]) -> None:
    """Check one trace step carries every StepRecord field, with the nested records whole."""
    missing = required(StepRecord) - step.keys()
    assert not missing, sorted(missing)
    assert required(Strategy) <= step["strategy"].keys(), step["strategy"]
    for found in [*step["documents"], *step["components"]]:
        assert required(Found) <= found.keys(), found
    assert isinstance(step["success"], bool) and step["reason"], step
    assert step["decided_by"] and isinstance(step["notes"], list)


def test_offline_fif_beats_dense_all_gold_on_the_sample(
    sample_index: Path, sample_examples: tuple[EvalExample, ...], record_property
) -> None:
    index = open_index(str(sample_index))
    context = FiFContext(index_dir=str(sample_index), top_k=K)
    fif_rows, dense_rows, latencies, steps = [], [], [], []
    for example in sample_examples:
        result = ask(example.question, context)
        ranked = [r["component_id"] for r in result.ranking]
        assert len(ranked) == len(set(ranked)) == K, example.qid
        assert result.history, example.qid
        for step in result.history:
            assert_step_is_complete(step)
        assert result.cost["llm_calls"] == 0 and result.cost["fallbacks"] == 0
        latencies.append(result.latency_ms)
        steps.append(len(result.history))
        fif_rows.append(retrieval_scores(ranked, example.gold))
        dense = dense_search(index, example.question, "subcomponent", K)
        dense_rows.append(retrieval_scores([n.node_id for n in dense], example.gold))
    fif, dense = _pooled(fif_rows), _pooled(dense_rows)
    record_property("fif_offline", fif)
    record_property("dense_subcomponent", dense)
    record_property("fif_p50_ms", round(statistics.median(latencies), 1))
    logger.info(
        "FiF offline on %d questions: %s (p50 %.0f ms, %.1f steps); dense subcomponent: %s",
        len(sample_examples),
        fif,
        statistics.median(latencies),
        statistics.fmean(steps),
        dense,
    )
    assert fif["AllGold@10"] >= dense["AllGold@10"], (fif, dense)
    assert fif["R@10"] >= dense["R@10"] - MARGIN, (fif, dense)


def run_fif(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the `fif` CLI with FIF_* settings of the caller's shell removed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIF_")}
    done = subprocess.run(
        [str(FIF), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"fif {args[0]} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done


def test_cli_ask_then_replay_lists_and_resumes_the_thread(
    sample_index: Path, sample_examples: tuple[EvalExample, ...], tmp_path: Path
) -> None:
    question = sample_examples[0].question
    asked = run_fif("ask", question, "--index", str(sample_index), "--json", cwd=tmp_path)
    found = re.search(r"^thread: (\S+)$", asked.stderr, re.MULTILINE)
    assert found, asked.stderr[-2000:]
    thread = found.group(1)
    result = json.loads(asked.stdout)
    assert result["thread_id"] == thread
    assert len(result["ranking"]) == K and result["trace"]
    for step in result["trace"]:
        assert_step_is_complete(step)

    listed = run_fif("replay", thread, "--index", str(sample_index), "--json", cwd=tmp_path)
    checkpoints = json.loads(listed.stdout)
    assert checkpoints[0]["next_nodes"] == ["__start__"]
    assert checkpoints[-1]["next_nodes"] == []  # the run finished
    assert checkpoints[-1]["traversals"] == len(result["trace"])
    assert [c["step"] for c in checkpoints] == sorted(c["step"] for c in checkpoints)

    resumed = run_fif(
        "replay", thread, "--index", str(sample_index), "--resume", "--json", cwd=tmp_path
    )
    again = json.loads(resumed.stdout)
    assert again["ranking"] == result["ranking"]
    assert again["trace"] == result["trace"]
