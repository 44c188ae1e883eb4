"""Time `fif build --update` of 1% of a bundle's documents against a full build.

Usage: python benchmarks/update_bench.py DATA/ottqa-dev200 [--fraction 0.01]
       [--documents N] [--out runs/bench]

Builds the bundle's corpus cold (its last documents held out), then changes `fraction` of
the documents (a third removed, a third edited: one paragraph rewritten, a third added:
the held-out ones) and updates the index. Prints and writes (OUT/update_bench.json) the
full build's wall time, the update's wall time and stage split, what the update changed
and embedded, and the ratio (the target is at most 0.05).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

from corpus_builder.build import BuildOptions, build


def main() -> None:
    """Build, change, update, and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--fraction", type=float, default=0.01)
    parser.add_argument("--documents", type=int, help="use only the first N documents")
    parser.add_argument("--out", type=Path, default=Path("runs/bench"))
    args = parser.parse_args()
    records = read_records(args.bundle / "corpus.jsonl", args.documents)
    share = max(3, math.ceil(len(records) * args.fraction))
    before, after = two_corpora(records, share)
    with tempfile.TemporaryDirectory(prefix="fif-update-bench-") as tmp:
        work = Path(tmp)
        corpus_a, corpus_b, index = work / "a.jsonl", work / "b.jsonl", work / "index"
        write_records(corpus_a, before)
        write_records(corpus_b, after)
        started = time.perf_counter()
        full = build(corpus_a, index, BuildOptions(show_progress=False))
        full_s = time.perf_counter() - started
        started = time.perf_counter()
        updated = build(corpus_b, index, BuildOptions(show_progress=False, update=True))
        update_s = time.perf_counter() - started
    figures: dict[str, Any] = {
        "bundle": args.bundle.name,
        "documents": len(before),
        "changed_documents": share,
        "full_build_s": round(full_s, 1),
        "full_texts_embedded": full.embedding.get("texts_embedded", 0),
        "update_s": round(update_s, 1),
        "update_timings_s": updated.timings,
        "update_documents": updated.documents,
        "update_texts_embedded": updated.embedding.get("texts_embedded", 0),
        "ratio": round(update_s / full_s, 4),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "update_bench.json").write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps(figures, indent=1))  # noqa: T201


def read_records(path: Path, limit: int | None) -> list[dict[str, Any]]:
    """Return the bundle's documents (the first `limit` if given)."""
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    return records[:limit] if limit else records


def two_corpora(
    records: list[dict[str, Any]], share: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return corpus A (all but the held-out) and B (A with `share` documents changed)."""
    third = max(1, share // 3)
    held_out, kept = records[-third:], records[:-third]
    editable = [r for r in kept if _paragraph(r) is not None]
    edited = {id(r) for r in editable[: share - 2 * third]}
    removed = {id(r) for r in editable[len(editable) - third :]}
    after = [_edited(r) if id(r) in edited else r for r in kept if id(r) not in removed]
    return kept, after + held_out


def _paragraph(record: dict[str, Any]) -> int | None:
    for position, component in enumerate(record.get("components", [])):
        if component.get("type") == "paragraph" and component.get("text"):
            return position
    return None


def _edited(record: dict[str, Any]) -> dict[str, Any]:
    """Return a copy with its first paragraph rewritten (its sentences in reverse order)."""
    position = _paragraph(record)
    assert position is not None
    components = [dict(c) for c in record["components"]]
    sentences = components[position]["text"].split(". ")
    components[position]["text"] = ". ".join(reversed(sentences)) + " (revised)"
    return {**record, "components": components}


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    """Write documents as a corpus.jsonl file."""
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
