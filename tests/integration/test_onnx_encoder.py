"""The ONNX Runtime encoder of the packaged model, and indices that record their encoder.

A text's vector must not depend on the texts embedded with it, the query path must not
import torch, and an index built by the torch int8 encoder must still be queried with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_mean_pooling import TEXTS

from corpus_builder.build import BuildOptions, build
from tools.corpus_index import CorpusIndex
from tools.embedders import TORCH_INT8_EMBEDDER, load_embedder
from tools.onnx_encoder import ONE_BY_ONE, OnnxEncoder
from tools.span_pooling import ContextRequest

pytestmark = pytest.mark.integration

ONNX = "onnx:all-MiniLM-L6-v2#int8@128"
MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini_bundle"
MIXED = [
    "hired",
    "Who won the 1998 Tour de France?",
    " ".join(["a very long table row"] * 60),  # past the token limit: truncated
    "Çelik Zenica's 1998–99 season: 2-1 on aggregate",
]


@pytest.mark.parametrize("spec", [ONNX, "onnx:all-MiniLM-L6-v2#fp32@128"])
def test_a_texts_vector_does_not_depend_on_its_batch(spec: str) -> None:
    encoder = load_embedder(spec)
    texts = [*MIXED, *TEXTS]
    alone = np.vstack([encoder.embed([text]) for text in texts])
    for batch in (texts, texts[::-1], [texts[0], texts[2], texts[0]]):
        together = encoder.embed(batch)
        expected = np.vstack([alone[texts.index(text)] for text in batch])
        assert np.abs(together - expected).max() <= 1e-6


def test_a_few_texts_are_tokenised_as_a_batch_of_them_is() -> None:
    encoder = load_embedder(ONNX)
    assert isinstance(encoder, OnnxEncoder)
    texts = [*MIXED, *TEXTS]
    assert len(texts) <= ONE_BY_ONE  # one by one, as a query step's texts
    batched = encoder.tokenizer.encode_batch(texts)
    tokens = [(e.ids, e.type_ids) for e in encoder.encodings(texts)]
    assert tokens == [(e.ids, e.type_ids) for e in batched]
    assert [(e.ids, e.type_ids) for e in encoder.encodings(texts * 2)] == tokens * 2  # batched


def test_the_onnx_encoders_stay_close_to_fp32() -> None:
    exact = load_embedder("st:all-MiniLM-L6-v2#fp32@128").embed([*MIXED, *TEXTS])
    fp32 = load_embedder("onnx:all-MiniLM-L6-v2#fp32@128").embed([*MIXED, *TEXTS])
    rows = load_embedder(ONNX).embed([*MIXED, *TEXTS])
    assert np.abs(fp32 - exact).max() < 1e-5
    assert (rows * exact).sum(axis=1).min() > 0.98


def test_span_pooling_gives_the_whole_text_the_vector_it_has_alone() -> None:
    encoder = load_embedder(ONNX)
    assert isinstance(encoder, OnnxEncoder)
    text = "Warsaw. It is the capital of Poland. It lies on the Vistula."
    found = encoder.embed_in_context([ContextRequest(text, ((8, 36), (37, 200)), 6)])[0]
    assert np.abs(found.text - encoder.embed([text])[0]).max() <= 1e-6
    assert found.spans[0] is not None and found.spans[1] is None  # past the text's end
    sentence = encoder.embed(["Warsaw It is the capital of Poland."])[0]
    assert float(found.spans[0] @ sentence) > 0.8


def test_a_new_process_loads_the_cached_encoder_without_torch() -> None:
    expected = load_embedder(ONNX).embed(MIXED)  # exported to the cache if not there yet
    script = (
        "import json, sys\n"
        "from tools.saved_encoder import query_embedder\n"
        f"vectors = query_embedder({ONNX!r}).embed({MIXED!r})\n"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
        "print(json.dumps([vectors.tolist(), heavy]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    vectors, imported = json.loads(done.stdout)
    assert imported == []
    assert np.array_equal(np.asarray(vectors, dtype=np.float32), expected)


@pytest.mark.parametrize("spec", [ONNX, TORCH_INT8_EMBEDDER])
def test_an_index_is_queried_with_the_encoder_that_built_it(tmp_path: Path, spec: str) -> None:
    index_dir = tmp_path / "mini"
    build(MINI, index_dir, BuildOptions(text_embedder=spec, show_progress=False))
    index = CorpusIndex.open(index_dir)
    builder = load_embedder(spec)
    assert index.manifest.text_embedder.spec == spec
    assert index.manifest.text_embedder.model_id == builder.model_id
    assert index.text_embedder.model_id == builder.model_id
    index.queries.helper = None
    question = "Who painted the portrait?"
    assert np.array_equal(index.embed_query(question), builder.embed([question])[0])
