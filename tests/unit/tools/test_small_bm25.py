import random

import bm25s
import numpy as np
import pytest

from tools.small_bm25 import bm25_scores, bm25_scores_of_ids


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


@pytest.mark.parametrize("seed", range(4))
def test_term_id_arrays_score_exactly_as_term_lists(seed: int) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(25)]
    ids = {word: i for i, word in enumerate(words[:20])}  # the last five: not in the store
    for _ in range(60):
        corpus = [
            [rng.choice(words[: rng.randint(2, 20)]) for _ in range(rng.randint(0, 40))]
            for _ in range(rng.randint(1, 50))
        ]
        query = [rng.choice(words) for _ in range(rng.randint(1, 8))]
        docs = [np.array([ids[w] for w in text], dtype=np.int32) for text in corpus]
        query_ids = [ids.get(w, -1) for w in query]
        assert bm25_scores_of_ids(query_ids, docs) == bm25_scores(query, corpus)
