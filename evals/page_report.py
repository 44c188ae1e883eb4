"""Per-system page and region figures of a long-document eval (MMLongBench-Doc bundles).

Every question of the bundle counts for every system: a question the system failed on (an
`error` line) or that the eval never ran (`fif eval` skips questions whose gold is not in
the index, e.g. scanned documents in an index built without OCR) scores as an empty
ranking, and the summary says how many there were. In the single-document setting it also
counts the answers that returned a page of another document (a scope leak).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evals.metrics import pool
from evals.page_metrics import long_document_scores, region_hit_at_k

SOURCES = ("text", "layout", "table", "chart", "figure")
"""Evidence sources of the bundle's `modalities`, in the order they are reported."""


def latest_lines(lines: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    """Return the last result line of each (qid, system): a rerun's line replaces an older one."""
    return {(line["qid"], line["system"]): line for line in lines}


def system_figures(
    lines: Mapping[tuple[str, str], Mapping[str, Any]],
    questions: Sequence[Mapping[str, Any]],
    system: str,
    single_doc: bool,
) -> dict[str, Any]:
    """Return one system's pooled page metrics and breakdowns over every question."""
    rows: list[tuple[Mapping[str, Any], dict[str, float]]] = []
    regions: list[float] = []
    errors = not_run = outside = 0
    for question in questions:
        line = lines.get((question["qid"], system))
        not_run += line is None
        errors += line is not None and "error" in line
        pages = list((line or {}).get("pages") or [])
        scores = long_document_scores(pages, set(question["gold_pages"]))
        rows.append((question, scores))
        if question.get("gold_regions"):
            boxes = (line or {}).get("regions") or []
            regions.append(region_hit_at_k(boxes, question["gold_regions"]))
        outside += single_doc and _leaves_scope(pages, question)
    return {
        **{key: round(value, 3) for key, value in pool([s for _, s in rows]).items()},
        **breakdowns(rows),
        "RegionHit@10": round(sum(regions) / len(regions), 3) if regions else float("nan"),
        "region_questions": len(regions),
        "errors": errors,
        "not_run": not_run,
        "outside_scope": outside,
    }


def breakdowns(rows: Sequence[tuple[Mapping[str, Any], dict[str, float]]]) -> dict[str, Any]:
    """Return page recall@5 by evidence source and for questions whose evidence lacks text."""
    by_source: dict[str, float] = {}
    for source in SOURCES:
        hits = [s["PageRecall@5"] for q, s in rows if source in q.get("modalities", [])]
        by_source[source] = round(sum(hits) / len(hits), 3) if hits else float("nan")
    textless = [s["PageRecall@5"] for q, s in rows if q.get("textless_evidence")]
    return {
        "R@5_by_source": by_source,
        "R@5_textless": round(sum(textless) / len(textless), 3) if textless else float("nan"),
        "textless_questions": len(textless),
    }


def _leaves_scope(pages: Sequence[str], question: Mapping[str, Any]) -> bool:
    """Tell whether a ranking holds a page of a document the question does not name."""
    docs = set(question.get("question_docs") or ())
    return bool(docs) and any(page.rsplit("#", 1)[0] not in docs for page in pages)
