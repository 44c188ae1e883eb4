import numpy as np

from tools.span_pooling import ContextRequest, pool_request, token_batches

# "Ti: ab cd" as tokens [CLS] Ti : ab cd [SEP] [PAD], one-hot states to read the pools back
OFFSETS = np.array([[0, 0], [0, 2], [2, 3], [4, 6], [7, 9], [0, 0], [0, 0]])
MASK = np.array([1, 1, 1, 1, 1, 1, 0], dtype=bool)
STATES = np.eye(7, dtype=np.float32)


def unit(*rows: int) -> np.ndarray:
    vector = STATES[list(rows)].mean(axis=0)
    return vector / np.linalg.norm(vector)


def test_the_whole_text_is_the_mean_of_every_real_token_and_the_specials() -> None:
    pooled = pool_request(STATES, MASK, OFFSETS, ContextRequest("Ti: ab cd", ()))
    assert np.allclose(pooled.text, unit(0, 1, 2, 3, 4, 5))
    assert pooled.spans == ()


def test_a_span_pools_its_own_tokens_and_the_prefix() -> None:
    request = ContextRequest("Ti: ab cd", ((4, 6), (7, 9)), prefix_chars=2)
    pooled = pool_request(STATES, MASK, OFFSETS, request)
    assert np.allclose(pooled.spans[0], unit(1, 3))  # "Ti" + "ab"
    assert np.allclose(pooled.spans[1], unit(1, 4))  # "Ti" + "cd"


def test_a_span_past_the_window_has_no_vector() -> None:
    request = ContextRequest("Ti: ab cd ef", ((4, 6), (10, 12)))  # "ef" was truncated away
    pooled = pool_request(STATES, MASK, OFFSETS, request)
    assert pooled.spans[0] is not None and pooled.spans[1] is None


def test_token_batches_fill_a_budget_longest_first() -> None:
    assert token_batches([3, 10, 4, 2, 9], budget=20) == [[1, 4], [2, 0, 3]]
    assert token_batches([30, 5], budget=20) == [[0], [1]]  # a long text runs alone
    assert token_batches([], budget=20) == []
