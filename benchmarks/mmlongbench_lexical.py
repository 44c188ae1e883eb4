"""BM25 page ranking over an MMLongBench-Doc bundle: what regions and OCR add to plain text.

Usage: python benchmarks/mmlongbench_lexical.py BUNDLE [BUNDLE ...] [--out FILE]

The issue's crude BM25 anchor, over FiF's components instead of raw page text: each
component's text (a table's rows, a region's caption and inside text) is a BM25 document
(bm25s, English stop words); a page scores its best component; pages are ranked within the
question's own document (single-document) and over all documents (shared store). Run on the
bundle converted with OCR and the one converted without it, the difference is what regions
and OCR add, with no model and no LLM. Questions always come from the first bundle.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from mmlongbench_bench import COLUMNS

from evals.page_metrics import REGION_K
from evals.page_report import system_figures
from state.ids import page_key


def component_texts(
    bundle: Path,
) -> tuple[list[str], list[list[str]], list[str], list[dict[str, Any] | None]]:
    """Return each component's text, the "DOC#PAGE" keys it covers, its document and region."""
    texts, pages, docs, regions = [], [], [], []
    for line in (bundle / "corpus.jsonl").read_text().splitlines():
        document = json.loads(line)
        for component in document["components"]:
            if "pages" not in component:
                continue
            table = component.get("table") or {}
            rows = [" ".join(row) for row in [table.get("header", []), *table.get("rows", [])]]
            text = " ".join([component.get("text") or component.get("caption") or "", *rows])
            first, last = component["pages"]
            texts.append(text)
            pages.append([page_key(document["doc_id"], p) for p in range(first, last + 1)])
            docs.append(document["doc_id"])
            box = component.get("box")
            regions.append({"doc": document["doc_id"], "page": first, "bbox": box} if box else None)
    return texts, pages, docs, regions


def rank(
    bundle: Path, questions: list[dict[str, Any]], single: bool
) -> list[tuple[list[str], list[dict[str, Any]]]]:
    """Return each question's page ranking (best component per page) and top 10 boxes."""
    texts, pages, docs, boxes = component_texts(bundle)
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    doc_of = np.array(docs)
    rankings = []
    for question in questions:
        tokens = bm25s.tokenize([question["question"]], stopwords="en", show_progress=False)
        scores = retriever.get_scores(_words(tokens))
        if single:
            scores = np.where(doc_of == question["question_docs"][0], scores, -1.0)
        best: dict[str, float] = {}
        regions: list[dict[str, Any]] = []
        for index in np.argsort(-scores)[:2000]:
            if scores[index] < 0:
                break
            for key in pages[index]:
                best.setdefault(key, float(scores[index]))
            box = boxes[index]
            if box is not None and len(regions) < REGION_K:
                regions.append(box)
        rankings.append((list(best), regions))
    return rankings


def _words(tokens: Any) -> list[str]:
    inverse = {v: k for k, v in tokens.vocab.items()}
    return [inverse[i] for i in tokens.ids[0]]


def main() -> None:
    """Rank, score and print each bundle in both settings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundles", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    lines = (args.bundles[0] / "questions.jsonl").read_text().splitlines()
    questions = [json.loads(line) for line in lines]
    figures: dict[str, Any] = {}
    for bundle in args.bundles:
        for single in (True, False):
            ranked = zip(questions, rank(bundle, questions, single), strict=True)
            lines = {
                (question["qid"], "bm25"): {"pages": ranking, "regions": regions}
                for question, (ranking, regions) in ranked
            }
            setting = "single-document" if single else "shared store"
            figures[f"{bundle.name} {setting}"] = system_figures(lines, questions, "bm25", single)
    print(
        "| bundle, setting | R@1 | R@5 | R@10 | all@10 | MRR@10 | text-less R@5 | region hit@10 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for run, found in figures.items():
        cells = " | ".join(f"{found[c]:.3f}" for c in COLUMNS)
        print(f"| {run} | {cells} | {found['R@5_textless']:.3f} | {found['RegionHit@10']:.3f} |")
    for run, found in figures.items():
        print(f"R@5 by source, {run}: {found['R@5_by_source']}")
    if args.out is not None:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
