"""Page and region metrics for long-document benchmarks (MMLongBench-Doc, MMDocIR).

Page recall@k is MMDocIR's: the FRACTION of gold pages among the top k pages; page hit@k is
1 when any gold page is there (evals.metrics' page R@k, FinanceBench's). Region hit@k is 1
when a gold box overlaps one of the top k returned boxes on the same page of the same
document (boxes in PDF points, top-left origin).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from evals.metrics import MRR_K, all_gold_recall_at_k, check_gold_and_k, mrr_at_k, recall_at_k

PAGE_KS: tuple[int, ...] = (1, 5, 10)
REGION_K = 10


def page_recall_at_k(pages: Sequence[str], gold_pages: AbstractSet[str], k: int) -> float:
    """Return the share of gold pages among the top k distinct pages.

    Raises:
        ValueError: If gold_pages is empty or k < 1.
    """
    check_gold_and_k(gold_pages, k, "gold_pages is empty: a page-recall example needs a gold page")
    top = set(list(dict.fromkeys(pages))[:k])
    return len(top & set(gold_pages)) / len(gold_pages)


def long_document_scores(pages: Sequence[str], gold_pages: AbstractSet[str]) -> dict[str, float]:
    """Return page recall@1/5/10, page hit@1/5/10, all-pages@10 and page MRR@10.

    Raises:
        ValueError: If gold_pages is empty.
    """
    scores = {f"PageRecall@{k}": page_recall_at_k(pages, gold_pages, k) for k in PAGE_KS}
    scores.update({f"PageHit@{k}": recall_at_k(pages, gold_pages, k) for k in PAGE_KS})
    scores["AllPages@10"] = all_gold_recall_at_k(pages, gold_pages, 10)
    scores[f"PageMRR@{MRR_K}"] = mrr_at_k(pages, gold_pages, MRR_K)
    return scores


def boxes_overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    """Tell whether two (x1, y1, x2, y2) boxes share an area (touching edges do not)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def region_hit_at_k(
    regions: Sequence[Mapping[str, Any]], gold: Sequence[Mapping[str, Any]], k: int = REGION_K
) -> float:
    """Return 1.0 if a gold box overlaps one of the top k returned boxes, else 0.0.

    Both are `{"doc", "page", "bbox"}` records (tools.page_regions, the bundle's gold_regions).

    Raises:
        ValueError: If gold is empty or k < 1.
    """
    check_gold_and_k(
        gold, k, "gold regions are empty: score region hit only where region gold exists"
    )
    for region in regions[:k]:
        for box in gold:
            same_page = region["doc"] == box["doc"] and int(region["page"]) == int(box["page"])
            if same_page and boxes_overlap(region["bbox"], box["bbox"]):
                return 1.0
    return 0.0
