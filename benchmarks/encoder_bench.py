"""Text encoders side by side in one run: throughput, batch independence, agreement with fp32.

Usage: python benchmarks/encoder_bench.py [BUNDLE] [--texts 2000] [--rounds 2]

On the same texts (the standalone texts a build embeds for BUNDLE's documents,
deduplicated as the build does; a random sample of `--texts`), at 128 tokens:
- `plain fp32`: `SentenceTransformer.encode` of the packaged MiniLM;
- the torch int8 encoder (`st:...#int8@128`, dynamic quantisation, token-budget batches);
- the ONNX Runtime encoders (`onnx:...#int8@128` scaled per row, and `#fp32`).
Each encoder runs every round in turn and keeps its best, so a burst of load hits none
alone. Prints texts/s and the ratio to the torch int8 encoder; then, per encoder, the
largest coordinate difference between texts embedded alone and inside one mixed-length
batch, and the cosine of its vectors to plain fp32 (min and median).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_bench import layer_items  # noqa: E402

from corpus_builder.contextual import standalone_text  # noqa: E402
from tools.embedders import load_embedder, resolve_model_path  # noqa: E402

TORCH_INT8 = "st:all-MiniLM-L6-v2#int8@128"
ONNX_INT8 = "onnx:all-MiniLM-L6-v2#int8@128"
ONNX_FP32 = "onnx:all-MiniLM-L6-v2#fp32@128"
SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "ottqa-sample"
Encode = Callable[[Sequence[str]], np.ndarray]


def bundle_texts(bundle: Path, count: int) -> list[str]:
    """Return up to `count` distinct standalone texts a build of `bundle` embeds."""
    items = layer_items(bundle)
    texts = list(dict.fromkeys(standalone_text(i.content) for layer in items for i in layer))
    return random.Random(7).sample(texts, min(count, len(texts)))


def encoders() -> dict[str, Encode]:
    """Return the encoders compared, each loaded and warmed up."""
    from sentence_transformers import SentenceTransformer

    plain = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    plain.max_seq_length = 128
    found: dict[str, Encode] = {
        "plain fp32 (encode)": lambda texts: np.asarray(
            plain.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
        ),
    }
    for spec in (TORCH_INT8, ONNX_INT8, ONNX_FP32):
        found[spec] = load_embedder(spec).embed
    for encode in found.values():
        encode(["a warm-up text", "and another, longer warm-up text for the batch"])
    return found


def throughput(runs: dict[str, Encode], texts: list[str], rounds: int) -> dict[str, float]:
    """Return each encoder's best texts/s over `rounds` interleaved rounds."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, encode in runs.items():
            started = time.perf_counter()
            encode(texts)
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: len(texts) / seconds for name, seconds in best.items()}


def batch_drift(encode: Encode, texts: list[str]) -> float:
    """Return the largest coordinate difference between texts alone and in one batch."""
    mixed = sorted(texts, key=len)[:: max(1, len(texts) // 24)]  # short to long
    alone = np.vstack([encode([text]) for text in mixed])
    return float(np.abs(alone - encode(mixed)).max())


def main() -> None:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path, nargs="?", default=SAMPLE)
    parser.add_argument("--texts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    texts = bundle_texts(args.bundle, args.texts)
    runs = encoders()
    speed = throughput(runs, texts, args.rounds)
    print(f"{len(texts)} texts of {args.bundle.name}, best of {args.rounds} rounds")
    print(f"{'encoder':38} {'texts/s':>8} {'x torch int8':>13}")
    for name, rate in speed.items():
        print(f"{name:38} {rate:8.1f} {rate / speed[TORCH_INT8]:13.2f}")
    reference = runs["plain fp32 (encode)"](texts)
    print(f"\n{'encoder':38} {'alone vs batch':>15} {'cos fp32 min':>13} {'median':>8}")
    for name, encode in runs.items():
        cosines = np.sum(encode(texts) * reference, axis=1)
        drift = batch_drift(encode, texts)
        median = statistics.median(cosines.tolist())
        print(f"{name:38} {drift:15.2e} {cosines.min():13.4f} {median:8.4f}")


if __name__ == "__main__":
    main()
