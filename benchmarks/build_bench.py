"""Build and search figures on a bundle, measured side by side in one run.

Usage: python benchmarks/build_bench.py ../shared/data/ottqa-dev200 [--out runs/bench]

Prints and writes (OUT/build_bench.json):
- build time split into parse / split / summarize / graph / embed / index, texts embedded
  per second, the non-embedding share, peak RSS and index size on disk;
- embedding throughput of a plain fp32 `SentenceTransformer.encode` against FiF's default
  embedder (int8 dynamic quantisation, 128-token inputs, deduplication) on the same texts;
- dense R@10 / all-gold@10 / MRR@10 at subcomponent granularity with fp32 and with the
  default embedder (exact search over the same texts), and through the built Chroma index;
- `fif search` latency p50 / p95 over the bundle's questions after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from corpus_builder.build import BuildOptions, build, embed_items, split_components
from corpus_builder.embed_stage import EmbedItem
from corpus_builder.ingest import read_corpus
from corpus_builder.splitters import FixedCrops
from corpus_builder.summaries import ExtractiveSummarizer
from evals.datasets.questions import load_questions
from evals.metrics import retrieval_scores
from state.corpus import IngestReport
from tools.corpus_index import open_index
from tools.embedders import DEFAULT_TEXT_EMBEDDER, load_embedder, resolve_model_path
from tools.search import dense_search

SAMPLE_TEXTS = 3000


def main() -> None:
    """Run every measurement and print a summary table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--out", type=Path, default=Path("runs/bench"))
    parser.add_argument("--index", type=Path, help="where to build (emptied first); default: temp")
    parser.add_argument(
        "--only-throughput",
        action="store_true",
        help="measure the embedding throughput ratio only (no build)",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, object] = {}
    if args.only_throughput:
        items = layer_items(args.bundle)
        figures["throughput"] = throughput([i.content for layer in items for i in layer])
        print(json.dumps(figures, indent=1))
        return
    with tempfile.TemporaryDirectory(prefix="fif-bench-") as tmp:
        index_dir = args.index or Path(tmp) / "index"
        shutil.rmtree(index_dir, ignore_errors=True)  # a cold build, not an incremental one
        started = time.perf_counter()
        manifest = build(args.bundle, index_dir, BuildOptions(show_progress=True))
        figures["build"] = build_figures(manifest, time.perf_counter() - started, index_dir)
        index = open_index(str(index_dir))
        questions = load_questions(args.bundle / "questions.jsonl").examples
        items = layer_items(args.bundle)
        texts = [item.content for layer in items for item in layer]
        figures["throughput"] = throughput(texts)
        figures["quality"] = quality(items[2], index, questions)
        figures["search"] = search_latency(index, questions)
    (args.out / "build_bench.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures, indent=1))


def build_figures(manifest: object, wall: float, index_dir: Path) -> dict[str, object]:
    """Return the build's time split, throughput, memory and size."""
    timings = dict(manifest.timings)  # type: ignore[attr-defined]
    embedded = manifest.embedding.get("texts_embedded", 0)  # type: ignore[attr-defined]
    size = subprocess.run(["du", "-sb", str(index_dir)], capture_output=True, text=True, check=True)
    return {
        "timings_s": timings,
        "wall_s": round(wall, 1),
        "texts_embedded": embedded,
        "texts_reused": manifest.embedding.get("texts_reused", 0),  # type: ignore[attr-defined]
        "texts_per_s": round(embedded / max(timings["embed"], 1e-9), 1),
        "non_embedding_share": round(1 - timings["embed"] / timings["total"], 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "index_mb": round(int(size.stdout.split()[0]) / 1e6, 1),
        "counts": manifest.counts,  # type: ignore[attr-defined]
    }


def layer_items(bundle: Path) -> tuple[list[EmbedItem], list[EmbedItem], list[EmbedItem]]:
    """Return the exact (document, component, subcomponent) texts the builder embeds."""
    _, documents = read_corpus(bundle, IngestReport())
    subcomponents = split_components(documents, FixedCrops())
    summarizer = ExtractiveSummarizer()
    summaries = {d.doc_id: summarizer.summarize(d) for d in documents}
    return embed_items(documents, subcomponents, summaries)


def throughput(texts: list[str], rounds: int = 3) -> dict[str, float]:
    """Compare plain fp32 encode with FiF's embedder on the same texts, rounds interleaved.

    Each side keeps its best round, so a burst of load on the machine hits neither alone.
    """
    from sentence_transformers import SentenceTransformer

    sample = random.Random(7).sample(texts, min(SAMPLE_TEXTS, len(texts)))
    plain = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    ours = load_embedder(DEFAULT_TEXT_EMBEDDER)
    plain.encode(sample[:64])
    ours.embed(sample[:64])
    plain_s = ours_s = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        plain.encode(sample)
        plain_s = min(plain_s, time.perf_counter() - started)
        started = time.perf_counter()
        ours.embed(list(dict.fromkeys(sample)))
        ours_s = min(ours_s, time.perf_counter() - started)
    return {
        "texts": len(sample),
        "rounds": rounds,
        "plain_fp32_texts_per_s": round(len(sample) / plain_s, 1),
        "fif_texts_per_s": round(len(sample) / ours_s, 1),
        "speedup": round(plain_s / ours_s, 2),
    }


def quality(
    items: list[EmbedItem], index: object, questions: list[object]
) -> dict[str, dict[str, float]]:
    """Dense retrieval quality at subcomponent granularity: fp32 vs int8, exact search."""
    owner = [item.metadata["component_id"] for item in items]
    texts = [item.content for item in items]
    result = {}
    for spec in ("st:all-MiniLM-L6-v2#fp32", DEFAULT_TEXT_EMBEDDER):
        embedder = load_embedder(spec)
        matrix = embedder.embed(texts)
        queries = embedder.embed([q.question for q in questions])  # type: ignore[attr-defined]
        scores = [
            retrieval_scores(_rank(matrix @ v, owner), set(q.gold))  # type: ignore[attr-defined]
            for v, q in zip(queries, questions, strict=True)
        ]
        result[spec] = _mean(scores)
    result["chroma_default"] = _mean(
        [
            retrieval_scores(
                [r.node_id for r in dense_search(index, q.question, "subcomponent", 10)],  # type: ignore[arg-type,attr-defined]
                set(q.gold),
            )  # type: ignore[attr-defined]
            for q in questions
        ]
    )
    return result


def _rank(scores: np.ndarray, owner: list[str], k: int = 10) -> list[str]:
    ranked: list[str] = []
    for position in np.argsort(-scores):
        if owner[position] not in ranked:
            ranked.append(owner[position])
            if len(ranked) == k:
                break
    return ranked


def _mean(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.mean(r[key] for r in rows), 3) for key in rows[0]}


def search_latency(index: object, questions: list[object]) -> dict[str, float]:
    """Time `fif search` (dense, subcomponent granularity) per question after a warm-up."""
    for q in questions[:5]:
        dense_search(index, q.question, "subcomponent", 10)  # type: ignore[arg-type,attr-defined]
    times = []
    for q in questions:
        started = time.perf_counter()
        dense_search(index, q.question, "subcomponent", 10)  # type: ignore[arg-type,attr-defined]
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1),
    }


if __name__ == "__main__":
    main()
