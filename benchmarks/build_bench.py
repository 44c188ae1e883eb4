"""Build and search figures on a bundle, measured side by side in one run.

Usage: python benchmarks/build_bench.py DATA/ottqa-dev200 [--out runs/bench]

Prints and writes (OUT/build_bench.json):
- build time split into parse / split / summarize / graph / embed / index, texts embedded
  per second, the non-embedding share, peak RSS and index size on disk;
- embedding throughput of a plain fp32 `SentenceTransformer.encode` against FiF's default
  embedding (int8 dynamic quantisation, token-budget batches) and its contextual-sentence
  option, on the same deduplicated texts of the same documents at the same token length;
- dense R@10 / all-gold@10 / MRR@10 at subcomponent granularity with plain fp32, FiF's
  default and contextual sentences (exact search over the same nodes), and through the
  built Chroma index;
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

from corpus_builder.build import BuildOptions, build, embed_items
from corpus_builder.contextual import ContextualEmbedding, standalone_text
from corpus_builder.embed_stage import EmbedItem
from corpus_builder.ingest import read_corpus
from corpus_builder.splitters import FixedCrops, split_components
from corpus_builder.summaries import ExtractiveSummarizer
from evals.datasets.questions import load_questions
from evals.metrics import retrieval_scores
from state.corpus import IngestReport
from tools.corpus_index import open_index
from tools.embedders import DEFAULT_TEXT_EMBEDDER, load_embedder, resolve_model_path
from tools.search import dense_search

SAMPLE_DOCUMENTS = 400


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
        figures["throughput"] = throughput(layer_items(args.bundle))
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
        figures["throughput"] = throughput(items)
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
    return embed_items(documents, subcomponents, summaries, contextual=True)


def throughput(
    items: tuple[list[EmbedItem], list[EmbedItem], list[EmbedItem]], rounds: int = 3
) -> dict[str, float]:
    """Compare plain fp32 encode with FiF's embedding paths on the same nodes, interleaved.

    The nodes are every item of SAMPLE_DOCUMENTS random documents. Plain fp32 and FiF's
    default encode the same texts (each node's standalone text, deduplicated within its layer
    as a build does) at the same token length (FiF's max_seq_length), so the ratio measures
    the int8 model and token-budget batches alone; `contextual` pools sentences from their
    paragraph's pass. Each keeps its best round, so a burst of load hits none alone.
    """
    from sentence_transformers import SentenceTransformer

    doc_ids = sorted({i.metadata["doc_id"] for i in items[0]})
    picked = set(random.Random(7).sample(doc_ids, min(SAMPLE_DOCUMENTS, len(doc_ids))))
    layers = [[i.content for i in layer if i.metadata["doc_id"] in picked] for layer in items]
    # the builder's order (sentences, components, documents), deduplicated within each layer
    deduped = [list(dict.fromkeys(standalone_text(c) for c in layer)) for layer in layers[::-1]]
    texts = [text for layer in deduped for text in layer]
    ours = load_embedder(DEFAULT_TEXT_EMBEDDER)
    plain = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    plain.max_seq_length = getattr(ours, "max_tokens", None) or ours.model.max_seq_length  # type: ignore[attr-defined]

    def plain_fp32() -> None:
        for layer in deduped:
            plain.encode(layer)

    def standalone() -> None:
        for layer in deduped:
            ours.embed(layer)

    def contextual() -> None:
        embedding = ContextualEmbedding(ours)  # type: ignore[arg-type]
        for layer in layers[::-1]:  # the builder's order: sentences, components, documents
            embedding.embed(list(dict.fromkeys(layer)))

    runs = {
        "plain_fp32": plain_fp32,
        "fif": standalone,
        "fif_contextual": contextual,
    }
    plain.encode(texts[:64])
    ours.embed(texts[:64])
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    result: dict[str, float] = {
        "documents": len(picked),
        "texts": len(texts),
        "max_seq_length": plain.max_seq_length,
        "rounds": rounds,
    }
    for name, seconds in best.items():
        result[f"{name}_texts_per_s"] = round(len(texts) / seconds, 1)
        result[f"{name}_speedup"] = round(best["plain_fp32"] / seconds, 2)
    return result


def quality(
    items: list[EmbedItem], index: object, questions: list[object]
) -> dict[str, dict[str, float]]:
    """Dense quality at subcomponent granularity, exact search over the same nodes.

    Plain fp32 and FiF's default embed each sentence and row alone; `contextual` pools
    sentences from their paragraph's pass; `chroma_default` searches the built index.
    """
    owner = [item.metadata["component_id"] for item in items]
    contents = [item.content for item in items]
    plain = load_embedder("st:all-MiniLM-L6-v2#fp32")
    ours = load_embedder(DEFAULT_TEXT_EMBEDDER)
    alone = [standalone_text(c) for c in contents]
    matrices = {
        "st:all-MiniLM-L6-v2#fp32": (plain, plain.embed(alone)),
        DEFAULT_TEXT_EMBEDDER: (ours, ours.embed(alone)),
        "contextual": (ours, ContextualEmbedding(ours).embed(contents)),  # type: ignore[arg-type]
    }
    result = {}
    for spec, (embedder, matrix) in matrices.items():
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
    return {
        "p50_ms": round(float(np.percentile(times, 50)), 1),
        "p95_ms": round(float(np.percentile(times, 95, method="lower")), 1),
    }


if __name__ == "__main__":
    main()
