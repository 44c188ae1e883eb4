"""What the latency benchmarks share: a bundle, its index and its first questions."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def bundle_questions(description: str) -> tuple[Path, Path, list[str]]:
    """Parse `BUNDLE --index INDEX [--limit N]`; return both folders and the first N questions."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=200)
    args = parser.parse_args()
    lines = (args.bundle / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    return args.bundle, args.index, questions[: args.limit]
