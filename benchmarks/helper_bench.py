"""FiF with and without the embedding helper process, side by side with dense, in one process.

Usage:
  python benchmarks/helper_bench.py BUNDLE --index DIR [--limit N]

Each question runs three ways in a rotating order, on a worker thread as `fif eval` runs
them, with the query cache emptied before each: dense (one subcomponent search), FiF with
its query texts all embedded in this process, and FiF with the helper embedding the
declared batches ahead (tools.embed_process). Prints p50 / p95 latency, the ratios to dense,
and how many FiF rankings differ between the two (none should: each query text is
embedded in a pass of its own, so its vector is the same wherever it is embedded).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from bench_questions import bundle_questions

from graph_agent.api import ask
from state.fif_context import FiFContext
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.search import dense_search

WAYS = ("dense", "fif, in-process", "fif, helper")
START_S = 120.0


def main() -> None:
    """Time the three ways on every question of the bundle and print the comparison."""
    bundle, index_dir, questions = bundle_questions(__doc__ or "")
    index, context = open_index(index_dir), FiFContext(index_dir=str(index_dir))
    helper = index.queries.helper
    if helper is None:
        raise SystemExit("no helper for this index's embedder (or FIF_EMBED_HELPER=0)")
    deadline = time.monotonic() + START_S
    while not helper.usable():
        if helper.failed or time.monotonic() > deadline:
            raise SystemExit("the helper process did not start")
        time.sleep(0.1)

    def once(way: str, question: str) -> tuple[float, list[str]]:
        index.forget_queries()
        index.queries.helper = helper if way == "fif, helper" else None
        started = time.perf_counter()
        if way == "dense":
            dense_search(index, question, "subcomponent", 10, CostMeter(), mode="dense")
            return (time.perf_counter() - started) * 1000.0, []
        ranking = [entry["component_id"] for entry in ask(question, context).ranking]
        return (time.perf_counter() - started) * 1000.0, ranking

    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eval")
    for question in questions[:10]:  # warm-up
        for way in WAYS:
            worker.submit(once, way, question).result()
    latency: dict[str, list[float]] = {way: [] for way in WAYS}
    rankings: dict[str, list[list[str]]] = {way: [] for way in WAYS}
    for i, question in enumerate(questions):
        for way in WAYS[i % 3 :] + WAYS[: i % 3]:
            ms, ranking = worker.submit(once, way, question).result()
            latency[way].append(ms)
            rankings[way].append(ranking)
    index.queries.helper = helper
    base = np.percentile(latency["dense"], [50, 95])
    print(f"{len(questions)} questions of {bundle.name}; ms (p50 / p95), x dense")
    for way in WAYS:
        p50, p95 = np.percentile(latency[way], [50, 95])
        print(f"  {way:16s} {p50:6.1f} / {p95:6.1f}   {p50 / base[0]:.2f}x / {p95 / base[1]:.2f}x")
    differ = sum(a != b for a, b in zip(*(rankings[w] for w in WAYS[1:]), strict=True))
    print(f"  FiF rankings that differ with the helper: {differ} of {len(questions)}")


if __name__ == "__main__":
    main()
