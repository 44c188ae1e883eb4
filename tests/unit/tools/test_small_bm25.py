import random

import bm25s
import pytest

from tools.small_bm25 import bm25_scores


def bm25s_scores(query: list[str], corpus: list[list[str]]) -> list[float]:
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    return [float(x) for x in retriever.get_scores(query)]


@pytest.mark.parametrize("seed", range(4))
def test_scores_are_the_float32_values_bm25s_gives(seed: int) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(25)]
    for _ in range(60):
        corpus = [
            [rng.choice(words[: rng.randint(2, 25)]) for _ in range(rng.randint(0, 20))]
            for _ in range(rng.randint(1, 30))
        ]
        if not any(corpus):
            continue
        query = [rng.choice(words) for _ in range(rng.randint(1, 6))]  # repeats and unknowns
        assert bm25_scores(query, corpus) == bm25s_scores(query, corpus)


def test_empty_texts_score_zero() -> None:
    assert bm25_scores(["a"], [[], []]) == [0.0, 0.0]
    assert bm25_scores(["zz"], [["a", "b"], []]) == [0.0, 0.0]
