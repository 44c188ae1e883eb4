"""Dense and FiF latency side by side, in one process, with where FiF's time goes.

Usage:
  python benchmarks/latency_split.py BUNDLE --index DIR [--limit N]

Each question runs dense (one subcomponent search) and FiF (offline), in alternating order,
on a worker thread as `fif eval` runs them, with the query cache emptied before each. Prints
p50 / p95 latency, FiF's ratios to dense, and the mean split of each system's time from its
cost meter: embedding (waiting for query vectors), vector (dense layer search), BM25 (sparse
layer search), LLM, nodes (the rest of the nodes' own time: graph reads, Python, sending
texts to the embedding helper), graph (outside the nodes: LangGraph's steps, preparing the
run and reading its result), and how many query texts each system embedded per question.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from bench_questions import bundle_questions

from graph_agent.api import ask
from state.fif_context import FiFContext
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.search import dense_search

SYSTEMS = ("dense", "fif")
PARTS = {"embedding": "embedding_ms", "vector": "vector_ms", "BM25": "sparse_ms", "LLM": "llm_ms"}
WARM_UP = 5


def once(index: CorpusIndex, context: FiFContext, system: str, question: str) -> dict[str, float]:
    """Run one system on one question; return its cost split and `latency_ms`."""
    index.forget_queries()
    started = time.perf_counter()
    if system == "dense":
        meter = CostMeter()
        dense_search(index, question, "subcomponent", 10, meter, mode="dense")
        cost: Mapping[str, float] = meter.as_dict()
    else:
        cost = ask(question, context).cost
    elapsed = (time.perf_counter() - started) * 1000.0
    return {**cost, "latency_ms": elapsed, "texts": float(index.queries.cached_count())}


def report(runs: dict[str, list[dict[str, float]]]) -> None:
    """Print latency percentiles, FiF's ratios to dense and each system's mean split."""
    base = np.percentile([r["latency_ms"] for r in runs["dense"]], [50, 95])
    print(f"{'system':8} {'p50 ms':>8} {'p95 ms':>8} {'x dense':>13}  mean split (ms)")
    for system, rows in runs.items():
        p50, p95 = np.percentile([r["latency_ms"] for r in rows], [50, 95])
        means = {
            name: float(np.mean([r.get(key, 0.0) for r in rows])) for name, key in PARTS.items()
        }
        total = float(np.mean([r["latency_ms"] for r in rows]))
        work = float(np.mean([r.get("work_ms", 0.0) or r["latency_ms"] for r in rows]))
        shares = (*means.items(), ("nodes", work - sum(means.values())), ("graph", total - work))
        split = ", ".join(f"{name} {value:.1f}" for name, value in shares)
        ratio = f"{p50 / base[0]:.2f}/{p95 / base[1]:.2f}"
        texts = float(np.mean([r["texts"] for r in rows]))
        print(f"{system:8} {p50:8.1f} {p95:8.1f} {ratio:>13}  {split}; {texts:.1f} texts")


def main() -> None:
    """Time dense and FiF on the bundle's questions and print the comparison."""
    bundle, index_dir, questions = bundle_questions(__doc__ or "")
    index, context = open_index(index_dir), FiFContext(index_dir=str(index_dir))
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eval")
    for question in questions[:WARM_UP]:
        for system in SYSTEMS:
            worker.submit(once, index, context, system, question).result()
    runs: dict[str, list[dict[str, float]]] = {system: [] for system in SYSTEMS}
    for i, question in enumerate(questions):
        for system in SYSTEMS[i % 2 :] + SYSTEMS[: i % 2]:
            runs[system].append(worker.submit(once, index, context, system, question).result())
    print(f"{len(questions)} questions of {bundle.name}, one process")
    report(runs)


if __name__ == "__main__":
    main()
