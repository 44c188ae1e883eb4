"""The embedding helper process with the packaged model: same vectors, and failures survived."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from test_mean_pooling import TEXTS

from evals.datasets.questions import EvalExample
from graph_agent.api import ask
from state.fif_context import FiFContext
from tools.corpus_index import open_index
from tools.embed_process import EmbedProcess, EmbedProcessError
from tools.embedders import DEFAULT_TEXT_EMBEDDER, TORCH_INT8_EMBEDDER, embed_each
from tools.query_vectors import QueryVectors
from tools.saved_encoder import query_embedder

pytestmark = pytest.mark.integration
START_S = 120.0


def started(helper: EmbedProcess) -> EmbedProcess:
    """Wait until the helper says it is ready (or has failed)."""
    helper.wait_ready(START_S)
    assert helper.usable() or helper.failed, "the helper did not start"
    return helper


@pytest.fixture
def helper():
    embedder = query_embedder(DEFAULT_TEXT_EMBEDDER)
    process = EmbedProcess(DEFAULT_TEXT_EMBEDDER, embedder.model_id, embedder.dim)
    yield process
    process.close()


def test_a_query_vector_is_the_same_whatever_it_is_embedded_with() -> None:
    embedder = query_embedder(TORCH_INT8_EMBEDDER)
    batch = [" ".join(["a long table row"] * 20), "Teen Vogue"]
    alone = embedder.embed(batch[1:])[0]
    assert not np.array_equal(embedder.embed(batch)[1], alone)  # int8: scaled by the batch
    assert np.array_equal(embed_each(embedder, batch)[1], alone)


def test_the_helper_embeds_bit_for_bit_as_this_process(helper: EmbedProcess) -> None:
    embedder = query_embedder(DEFAULT_TEXT_EMBEDDER)
    assert started(helper).usable()
    batches = [TEXTS[:1], TEXTS[:3], list(TEXTS), ["hired"] * 2]
    tickets = [helper.send(batch) for batch in batches]  # all under way at once
    for batch, ticket in reversed(list(zip(batches, tickets, strict=True))):  # any order
        assert np.array_equal(helper.receive(ticket), embed_each(embedder, batch)), batch


def test_a_batch_the_child_cannot_embed_is_answered_and_the_next_one_is_served(
    helper: EmbedProcess,
) -> None:
    started(helper)
    bad = helper.send([{"not": "text"}])  # type: ignore[list-item]
    good = helper.send(["Warsaw"])
    with pytest.raises(EmbedProcessError, match="Error"):
        helper.receive(bad)
    assert helper.receive(good).shape == (1, 384)


def test_a_helper_that_dies_leaves_the_run_to_this_process(
    helper: EmbedProcess, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = query_embedder(DEFAULT_TEXT_EMBEDDER)
    vectors = QueryVectors(started(helper))
    vectors.prefetch(["the flag of Warsaw"])
    assert helper._child is not None
    helper._child.kill()  # mid-run: the batch it owes is lost with it
    with caplog.at_level(logging.WARNING):
        got = vectors.vectors(["the flag of Warsaw"], embedder.embed)
    assert np.array_equal(got[0], embedder.embed(["the flag of Warsaw"])[0])
    assert helper.failed and "stays in this process" in caplog.text


def test_a_child_with_another_model_or_none_is_not_used(caplog: pytest.LogCaptureFixture) -> None:
    embedder = query_embedder(DEFAULT_TEXT_EMBEDDER)
    other = EmbedProcess(DEFAULT_TEXT_EMBEDDER, "st:another-model", embedder.dim)
    missing = EmbedProcess("st:/nonexistent/model#int8", embedder.model_id, embedder.dim)
    with caplog.at_level(logging.WARNING):
        for process in (other, missing):
            assert not started(process).usable() and process.failed
            process.close()
    assert "another model" in caplog.text and "exited with status" in caplog.text


def test_many_batches_under_way_never_block_on_a_full_pipe(helper: EmbedProcess) -> None:
    embedder = query_embedder(DEFAULT_TEXT_EMBEDDER)
    started(helper)
    texts = [f"page {i} of the filing" for i in range(60)]  # 90 KiB of answers in all
    tickets = [helper.send([text]) for text in texts]
    for text, ticket in reversed(list(zip(texts, tickets, strict=True))):
        assert np.array_equal(helper.receive(ticket)[0], embedder.embed([text])[0])


def test_fif_ranks_the_same_with_the_helper_as_without(
    sample_index: Path, sample_examples: tuple[EvalExample, ...]
) -> None:
    index = open_index(sample_index)
    helper = index.queries.helper
    assert helper is not None
    assert index.queries.start_helper(START_S)  # as `fif eval` does before its first question
    context = FiFContext(index_dir=str(sample_index))
    sent = helper._next_ticket
    try:
        for example in sample_examples[:6]:
            index.forget_queries()
            with_helper = ask(example.question, context).ranking
            index.queries.helper = None
            index.forget_queries()
            alone = ask(example.question, context).ranking
            index.queries.helper = helper
            assert with_helper == alone, example.question
    finally:
        index.queries.helper = helper
    assert helper._next_ticket - sent >= 12  # the question and its facets, at least
