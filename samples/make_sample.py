"""Cut the demo sample out of the OTT-QA dev bundle (ottqa-dev200, from `fif convert ottqa`).

It keeps a few questions, their tables, every passage those tables link to, and some
distractor tables with their passages.

Usage: python samples/make_sample.py DATA/ottqa-dev200 samples/ottqa-sample
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

QUESTIONS = 24
DISTRACTOR_TABLES = 6
SEED = 13


def main(source: Path, target: Path) -> None:
    """Write corpus.jsonl, questions.jsonl and stats.json of the sample."""
    docs = {}
    with (source / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            docs[record["doc_id"]] = record
    questions = [json.loads(line) for line in (source / "questions.jsonl").open(encoding="utf-8")]
    rng = random.Random(SEED)
    picked = rng.sample(questions, QUESTIONS)
    table_docs = {
        doc
        for q in picked
        for doc in q["gold_docs"]
        if any(c["type"] == "table" for c in docs[doc]["components"])
    }
    gold_tables = {c for q in picked for c in q["gold_components"]}
    others = sorted(
        d
        for d, r in docs.items()
        if d not in table_docs
        and any(
            c["type"] == "table" and c["component_id"] not in gold_tables for c in r["components"]
        )
    )
    table_docs |= set(rng.sample(others, DISTRACTOR_TABLES))
    keep = set(table_docs) | {d for q in picked for d in q["gold_docs"]}
    for doc in table_docs:
        for component in docs[doc]["components"]:
            keep.update(link for link in component.get("links", []) if link in docs)
    target.mkdir(parents=True, exist_ok=True)
    with (target / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc in sorted(keep):
            handle.write(json.dumps(docs[doc], ensure_ascii=False) + "\n")
    with (target / "questions.jsonl").open("w", encoding="utf-8") as handle:
        for question in sorted(picked, key=lambda q: q["qid"]):
            handle.write(json.dumps(question, ensure_ascii=False) + "\n")
    stats = {
        "source": str(source.name),
        "seed": SEED,
        "questions": len(picked),
        "documents": len(keep),
        "tables": len(table_docs),
    }
    (target / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
