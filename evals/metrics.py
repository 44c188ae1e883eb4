"""Score retrieval rankings and QA answers per example, and pool the scores over examples.

Retrieval metrics follow the seed papers: R@k is a hit when ANY gold component is in the top k.
Multi-hop sets also need all-gold recall@k (every gold component in the top k) and MRR@10,
because any-gold R@10 saturates on table+passage questions. QA metrics are SQuAD's EM and token
F1 with a normalisation that also undoes HybridQA/OTT-QA tokenisation ("17 , 1846", "M.G. 's").
"""

from __future__ import annotations

import logging
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet

logger = logging.getLogger(__name__)

RETRIEVAL_KS: tuple[int, ...] = (1, 2, 5, 10)
ALL_GOLD_KS: tuple[int, ...] = (5, 10)
MRR_K = 10
COUNT_KEY = "n"
"""Key of the example count that `pool` adds next to the means."""

_ASCII_PUNCTUATION = frozenset(string.punctuation)
# PTB-style tokenisers split clitics off their word ("M.G. 's", "do n't"); glue them back.
_CLITIC = re.compile(r"\s+(?=(?:'(?:s|re|ve|ll|d|m)|n't)\b)", re.IGNORECASE)
# Hyphens, dashes and slashes inside a token are sometimes spaced out ("2 - 1", "A / B").
_SPACED_JOINER = re.compile(r"(?<=\w)\s*([-\u2010-\u2015/])\s*(?=\w)")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")


def _unique(ranking: Iterable[str]) -> list[str]:
    """Return the ranking with later duplicates removed (first occurrence wins)."""
    return list(dict.fromkeys(ranking))


def check_gold_and_k(gold: Collection[object], k: int, if_empty: str) -> None:
    """Refuse an example without gold (raising `if_empty`) and a cut-off k below 1.

    Raises:
        ValueError: If gold is empty or k < 1.
    """
    if not gold:
        raise ValueError(if_empty)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


def _check(gold: AbstractSet[str], k: int) -> None:
    check_gold_and_k(
        gold, k, "gold is empty: a retrieval example needs at least one gold component id"
    )


def recall_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    """Return 1.0 if any gold id is among the top k distinct ids of the ranking, else 0.0.

    Args:
        ranking: Component ids, best first; duplicates count once, at their first position.
        gold: The gold component ids of the example; must not be empty.
        k: Cut-off, at least 1.

    Raises:
        ValueError: If gold is empty or k < 1.
    """
    _check(gold, k)
    return 1.0 if any(cid in gold for cid in _unique(ranking)[:k]) else 0.0


def all_gold_recall_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    """Return 1.0 if every gold id is among the top k distinct ids of the ranking, else 0.0.

    Raises:
        ValueError: If gold is empty or k < 1.
    """
    _check(gold, k)
    return 1.0 if set(gold) <= set(_unique(ranking)[:k]) else 0.0


def mrr_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int = MRR_K) -> float:
    """Return 1/rank of the first gold id within the top k distinct ids, or 0.0 if none is there.

    Raises:
        ValueError: If gold is empty or k < 1.
    """
    _check(gold, k)
    for rank, cid in enumerate(_unique(ranking)[:k], start=1):
        if cid in gold:
            return 1.0 / rank
    return 0.0


def retrieval_scores(ranking: Sequence[str], gold: AbstractSet[str]) -> dict[str, float]:
    """Return R@1/2/5/10, AllGold@5/10 and MRR@10 for one example.

    Raises:
        ValueError: If gold is empty.
    """
    scores = {f"R@{k}": recall_at_k(ranking, gold, k) for k in RETRIEVAL_KS}
    scores.update({f"AllGold@{k}": all_gold_recall_at_k(ranking, gold, k) for k in ALL_GOLD_KS})
    scores[f"MRR@{MRR_K}"] = mrr_at_k(ranking, gold, MRR_K)
    return scores


PAGE_KEYS: tuple[str, ...] = ("PageR@1", "PageR@5", "PageR@10", "AllPages@10", "PageMRR@10")
"""Page metrics (FinanceBench): the same definitions over "DOC#PAGE" rankings."""


def page_scores(pages: Sequence[str], gold_pages: AbstractSet[str]) -> dict[str, float]:
    """Return page R@1/5/10, all-pages@10 and page MRR@10 for one example.

    Raises:
        ValueError: If gold_pages is empty.
    """
    return {
        "PageR@1": recall_at_k(pages, gold_pages, 1),
        "PageR@5": recall_at_k(pages, gold_pages, 5),
        "PageR@10": recall_at_k(pages, gold_pages, 10),
        "AllPages@10": all_gold_recall_at_k(pages, gold_pages, 10),
        "PageMRR@10": mrr_at_k(pages, gold_pages, MRR_K),
    }


def _is_punctuation(ch: str) -> bool:
    return ch in _ASCII_PUNCTUATION or unicodedata.category(ch).startswith("P")


def normalize_answer(text: str) -> str:
    """Return SQuAD-normalised text that also matches HybridQA/OTT-QA's tokenised spelling.

    Lowercases, glues split clitics and spaced-out hyphens/dashes/slashes back onto their words,
    removes punctuation (ASCII and Unicode), the articles a/an/the, and extra whitespace. So
    "February 17 , 1846" == "February 17, 1846" and "Booker T. & the M.G. 's" ==
    "Booker T. & the M.G.'s".
    """
    text = _CLITIC.sub("", str(text).lower())
    text = _SPACED_JOINER.sub(r"\1", text)
    text = "".join(" " if ch.isspace() else ch for ch in text if not _is_punctuation(ch))
    return " ".join(_ARTICLES.sub(" ", text).split())


def _check_answers(answers: Sequence[str]) -> None:
    if isinstance(answers, str) or not answers:
        raise ValueError(
            "answers must be a non-empty list of strings, got "
            f"{answers!r}; wrap a single answer in a list"
        )


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    """Return 1.0 if the normalised prediction equals any normalised answer, else 0.0.

    Raises:
        ValueError: If answers is empty or a bare string.
    """
    _check_answers(answers)
    guess = normalize_answer(prediction)
    return 1.0 if any(guess == normalize_answer(answer) for answer in answers) else 0.0


def _f1(prediction_tokens: list[str], answer_tokens: list[str]) -> float:
    if not prediction_tokens or not answer_tokens:
        return 1.0 if prediction_tokens == answer_tokens else 0.0
    common = Counter(prediction_tokens) & Counter(answer_tokens)
    overlap = sum(common.values())
    if overlap == 0:
        return 0.0
    precision = overlap / len(prediction_tokens)
    recall = overlap / len(answer_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, answers: Sequence[str]) -> float:
    """Return the best token-level F1 of the prediction against any answer (SQuAD style).

    Raises:
        ValueError: If answers is empty or a bare string.
    """
    _check_answers(answers)
    tokens = normalize_answer(prediction).split()
    return max(_f1(tokens, normalize_answer(answer).split()) for answer in answers)


def pool(per_example: Sequence[dict[str, float]]) -> dict[str, float]:
    """Return the mean of each metric over examples, plus `"n"`, the number of examples.

    Every example must carry the same metric keys: a missing key would silently average over a
    subset. An empty input pools to `{"n": 0.0}`.

    Raises:
        ValueError: If the examples do not all have the same keys.
    """
    if not per_example:
        return {COUNT_KEY: 0.0}
    keys = list(per_example[0])
    for index, scores in enumerate(per_example):
        if set(scores) != set(keys):
            missing = sorted(set(keys) ^ set(scores))
            raise ValueError(
                f"example {index} has different metric keys than example 0 "
                f"(differing: {missing}); score every example with the same metrics"
            )
    pooled = {key: sum(scores[key] for scores in per_example) / len(per_example) for key in keys}
    pooled[COUNT_KEY] = float(len(per_example))
    return pooled


def breakdown(
    per_example: Sequence[dict[str, float]], groups: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Return pooled scores per group, e.g. by hop count, modality or answer source.

    Args:
        per_example: One score dict per example.
        groups: The group label of each example, aligned with per_example.

    Raises:
        ValueError: If the two sequences differ in length, or the examples' keys differ.
    """
    if len(per_example) != len(groups):
        raise ValueError(
            f"{len(per_example)} score dicts but {len(groups)} group labels; "
            "give exactly one group label per example"
        )
    members: dict[str, list[dict[str, float]]] = {}
    for scores, group in zip(per_example, groups, strict=True):
        members.setdefault(group, []).append(scores)
    return {group: pool(members[group]) for group in sorted(members)}
