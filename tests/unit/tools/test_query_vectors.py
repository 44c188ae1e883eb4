"""QueryVectors: a declared batch is embedded whole, by the helper or here, to the same vectors."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tools import embed_process, query_vectors
from tools.embed_process import EmbedProcess, EmbedProcessError
from tools.query_vectors import QueryVectors


def batch_embed(texts: list[str]) -> list[np.ndarray]:
    """Vectors that, like int8 ones, depend on the whole batch: a text's length and the batch's."""
    return [np.array([len(text), len(texts)], dtype=np.float32) for text in texts]


class Recorder:
    """The in-process embedder, recording its batches."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        self.batches.append(list(texts))
        return batch_embed(texts)


class ScriptedHelper:
    """A helper process stand-in: up or not, and failing on request."""

    def __init__(self, up: bool = True) -> None:
        self.up = up
        self.sent: list[list[str]] = []
        self.received: list[int] = []
        self.failures: list[str] = []
        self.broken = False

    def usable(self) -> bool:
        return self.up

    def send(self, texts: list[str]) -> int:
        if self.broken:
            raise EmbedProcessError("the embedding process closed its output")
        self.sent.append(list(texts))
        return len(self.sent) - 1

    def receive(self, ticket: int) -> np.ndarray:
        if self.broken:
            raise EmbedProcessError("the embedding process stopped mid-answer")
        self.received.append(ticket)
        return np.stack(batch_embed(self.sent[ticket]))

    def fail(self, reason: str) -> None:
        self.failures.append(reason)
        self.up = False


def test_without_a_helper_a_declared_batch_is_embedded_whole_when_first_needed() -> None:
    vectors, here = QueryVectors(), Recorder()
    vectors.prefetch(["the question"])
    vectors.prefetch(["clause one", "clause two", "the question"])  # the question: declared
    assert here.batches == []
    first = vectors.vectors(["the question"], here)
    assert here.batches == [["the question"]]
    both = vectors.vectors(["clause two", "a residual", "the question"], here)
    assert here.batches == [["the question"], ["clause one", "clause two"], ["a residual"]]
    assert np.array_equal(first[0], both[2]) and vectors.cached("clause one")
    assert both[0].tolist() == [10, 2] and both[1].tolist() == [10, 1]


def test_the_helper_embeds_what_is_declared_and_gives_the_same_vectors() -> None:
    helper, here = ScriptedHelper(), Recorder()
    with_helper = QueryVectors(helper)  # type: ignore[arg-type]
    alone = QueryVectors()
    for vectors in (with_helper, alone):
        vectors.prefetch(["q"])
        vectors.prefetch(["c1", "c22", "q"])
    texts = ["c22", "q", "now", "c1"]
    got = with_helper.vectors(texts, here)
    assert helper.sent == [["q"], ["c1", "c22"]] and helper.received == [1, 0]
    assert here.batches == [["now"]]  # needed now and never declared: embedded here
    expected = alone.vectors(texts, Recorder())
    assert all(np.array_equal(a, b) for a, b in zip(got, expected, strict=True))


def test_a_helper_that_is_still_loading_leaves_the_batch_to_this_process() -> None:
    helper, here = ScriptedHelper(up=False), Recorder()
    vectors = QueryVectors(helper)  # type: ignore[arg-type]
    vectors.prefetch(["a", "bb"])
    helper.up = True  # ready now: the batch was not sent, so it is embedded here, whole
    vectors.vectors(["bb"], here)
    assert helper.sent == [] and here.batches == [["a", "bb"]]


def test_a_helper_that_dies_is_dropped_and_its_batches_are_embedded_here() -> None:
    helper, here = ScriptedHelper(), Recorder()
    vectors = QueryVectors(helper)  # type: ignore[arg-type]
    vectors.prefetch(["a"])
    vectors.prefetch(["b", "cc"])
    helper.broken = True
    got = vectors.vectors(["cc", "a"], here)
    assert len(helper.failures) == 1 and not helper.usable()
    assert here.batches == [["b", "cc"], ["a"]]  # each as declared
    assert [v.tolist() for v in got] == [[2, 2], [1, 1]]
    vectors.prefetch(["later"])  # no more sends
    assert vectors.vectors(["later"], here)[0].tolist() == [5, 1] and len(helper.sent) == 2


def test_a_send_that_fails_defers_the_batch() -> None:
    helper, here = ScriptedHelper(), Recorder()
    helper.broken = True
    vectors = QueryVectors(helper)  # type: ignore[arg-type]
    vectors.prefetch(["x", "yy"])
    assert helper.failures and vectors.vectors(["yy"], here)[0].tolist() == [2, 2]


def test_forget_reads_what_the_helper_owes_then_drops_everything() -> None:
    helper, here = ScriptedHelper(), Recorder()
    vectors = QueryVectors(helper)  # type: ignore[arg-type]
    vectors.prefetch(["sent"])
    vectors.vectors(["kept"], here)
    vectors.forget()
    assert helper.received == [0]  # its answer was read, not left in the pipe
    assert not vectors.cached("sent") and not vectors.cached("kept")
    vectors.vectors(["sent"], here)
    assert here.batches == [["kept"], ["sent"]]  # embedded again: the run pays for its own


def test_declared_batches_left_unused_are_settled_past_the_limit(monkeypatch) -> None:
    monkeypatch.setattr(query_vectors, "DECLARED_LIMIT", 3)
    helper = ScriptedHelper()
    vectors = QueryVectors(helper)  # type: ignore[arg-type]
    vectors.prefetch(["a", "b"])
    vectors.prefetch(["c"])
    vectors.prefetch(["d"])  # 4 > 3: the earlier batches are read and cached first
    assert helper.received == [0, 1] and vectors.cached("a") and vectors.cached("c")
    assert not vectors.cached("d")


def test_the_cache_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(query_vectors, "CACHE_LIMIT", 2)
    vectors, here = QueryVectors(), Recorder()
    vectors.vectors(["a", "b"], here)
    got = vectors.vectors(["a", "c"], here)  # "a" is read before the bound drops it
    assert [v.tolist() for v in got] == [[1, 2], [1, 1]] and not vectors.cached("a")


@pytest.mark.parametrize("texts", [[], ["same", "same"]])
def test_empty_and_repeated_texts(texts: list[str]) -> None:
    vectors, here = QueryVectors(), Recorder()
    assert len(vectors.vectors(texts, here)) == len(texts)
    assert here.batches == ([] if not texts else [["same"]])


def test_runs_needing_one_declared_batch_embed_it_once_and_others_are_not_held() -> None:
    vectors = QueryVectors()
    started, release = threading.Event(), threading.Event()
    calls: list[list[str]] = []

    def slow(texts: list[str]) -> list[np.ndarray]:
        calls.append(list(texts))
        started.set()
        release.wait(5)
        return batch_embed(texts)

    vectors.prefetch(["a", "bb"])
    pool = ThreadPoolExecutor(max_workers=2)
    first = pool.submit(vectors.vectors, ["a"], slow)
    assert started.wait(5)
    second = pool.submit(vectors.vectors, ["bb"], slow)
    assert vectors.vectors(["other"], batch_embed)[0].tolist() == [5, 1]  # not held meanwhile
    time.sleep(0.05)
    assert not second.done()  # it waits for the first run's pass
    release.set()
    assert first.result()[0].tolist() == [1, 2] and second.result()[0].tolist() == [2, 2]
    assert calls == [["a", "bb"]]


def test_a_declared_batch_whose_pass_fails_is_embedded_by_the_next_run() -> None:
    vectors = QueryVectors()
    vectors.prefetch(["a", "bb"])

    def broken(texts: list[str]) -> list[np.ndarray]:
        raise RuntimeError("torch fell over")

    with pytest.raises(RuntimeError, match="fell over"):
        vectors.vectors(["a"], broken)
    assert vectors.vectors(["bb"], batch_embed)[0].tolist() == [2, 1]  # alone now


def test_start_helper_waits_for_a_loading_helper_and_not_for_a_failed_one(monkeypatch) -> None:
    process = EmbedProcess("st:some-model", "some-model", 4)
    loading = iter([False, False, True])  # usable() starts the child, then polls it
    monkeypatch.setattr(process, "usable", lambda: next(loading))
    monkeypatch.setattr(embed_process, "READY_POLL_S", 0.0)
    assert QueryVectors(process).start_helper(wait_s=5.0)
    monkeypatch.setattr(process, "usable", lambda: False)
    assert not QueryVectors(process).start_helper(wait_s=0.0)  # still loading: no wait
    process.failed = True
    started = time.monotonic()
    assert not QueryVectors(process).start_helper(wait_s=5.0)  # failed: no wait either
    assert time.monotonic() - started < 1.0
    assert not QueryVectors(None).start_helper(wait_s=5.0)


def test_cached_count_counts_each_text_once_until_forgotten() -> None:
    vectors, here = QueryVectors(), Recorder()
    vectors.prefetch(["declared, never needed"])
    vectors.vectors(["a", "b", "a"], here)
    assert vectors.cached_count() == 2
    vectors.forget()
    assert vectors.cached_count() == 0
