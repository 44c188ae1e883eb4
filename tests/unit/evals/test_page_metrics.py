import pytest

from evals.page_metrics import (
    boxes_overlap,
    long_document_scores,
    page_recall_at_k,
    region_hit_at_k,
)


def test_page_recall_is_the_share_of_gold_pages_in_the_top_k() -> None:
    pages = ["d#4", "d#1", "d#4", "d#7", "d#2"]
    gold = {"d#1", "d#2", "d#9"}
    assert page_recall_at_k(pages, gold, 1) == 0.0
    assert page_recall_at_k(pages, gold, 2) == pytest.approx(1 / 3)
    assert page_recall_at_k(pages, gold, 4) == pytest.approx(2 / 3)  # the repeat counts once


def test_long_document_scores_on_a_hand_computed_case() -> None:
    scores = long_document_scores(["d#3", "d#1", "d#2"], {"d#1", "d#2"})
    assert scores == {
        "PageRecall@1": 0.0,
        "PageRecall@5": 1.0,
        "PageRecall@10": 1.0,
        "PageHit@1": 0.0,
        "PageHit@5": 1.0,
        "PageHit@10": 1.0,
        "AllPages@10": 1.0,
        "PageMRR@10": 0.5,
    }


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((0, 0, 10, 10), (5, 5, 15, 15), True),
        ((0, 0, 10, 10), (10, 0, 20, 10), False),  # edges touch
        ((0, 0, 10, 10), (2, 2, 3, 3), True),  # inside
        ((0, 0, 10, 10), (0, 11, 10, 20), False),
    ],
)
def test_boxes_overlap(a: tuple[int, ...], b: tuple[int, ...], expected: bool) -> None:
    assert boxes_overlap(a, b) is expected


def test_region_hit_needs_the_same_doc_and_page_and_an_overlap_within_k() -> None:
    gold = [{"doc": "d", "page": 2, "bbox": [100, 100, 200, 200]}]
    other_page = {"doc": "d", "page": 3, "bbox": [100, 100, 200, 200]}
    other_doc = {"doc": "e", "page": 2, "bbox": [100, 100, 200, 200]}
    apart = {"doc": "d", "page": 2, "bbox": [300, 300, 400, 400]}
    hit = {"doc": "d", "page": 2, "bbox": [150, 150, 500, 500]}
    assert region_hit_at_k([other_page, other_doc, apart, hit], gold) == 1.0
    assert region_hit_at_k([other_page, other_doc, apart, hit], gold, k=3) == 0.0
    with pytest.raises(ValueError, match="gold regions are empty"):
        region_hit_at_k([hit], [])
