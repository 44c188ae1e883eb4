"""Per-row int8 quantisation of an ONNX graph: no row's output depends on the other rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from tools.errors import ConfigError
from tools.onnx_encoder import _check_mean_pooled, onnx_spec
from tools.onnx_export import quantise_rows


def _two_linears(path: Path, rng: np.random.Generator) -> None:
    """Write x -> MatMul(W1) -> Relu -> MatMul(W2) -> y, with a (batch, tokens, 8) input."""
    w1 = numpy_helper.from_array(rng.normal(size=(8, 16)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.normal(size=(16, 4)).astype(np.float32), "w2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"]),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("MatMul", ["r", "w2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "two_linears",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "t", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "t", 4])],
        [w1, w2],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return np.asarray(session.run(None, {"x": x})[0])


def test_rows_are_quantised_alone_and_stay_close_to_fp32(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    plain, rows = tmp_path / "plain.onnx", tmp_path / "rows.onnx"
    _two_linears(plain, rng)
    assert quantise_rows(plain, rows) == 2
    ops = {node.op_type for node in onnx.load(str(rows)).graph.node}
    assert "MatMulInteger" in ops and "MatMul" not in ops
    small = rng.normal(size=(1, 3, 8)).astype(np.float32)
    loud = 100 * rng.normal(size=(1, 3, 8)).astype(np.float32)  # would set a batch's scale
    both = np.concatenate([small, loud])
    assert np.array_equal(_run(rows, both)[0], _run(rows, small)[0])
    assert np.array_equal(_run(rows, both)[0, :1], _run(rows, small[:, :1])[0])  # shorter
    exact = _run(plain, both)
    assert np.abs(_run(rows, both) - exact).max() < 0.05 * np.abs(exact).max()


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("all-MiniLM-L6-v2", ("all-MiniLM-L6-v2", "int8", None, "onnx:all-MiniLM-L6-v2#int8row")),
        ("m#int8@128", ("m", "int8", 128, "onnx:m#int8row@128")),
        ("m#fp32", ("m", "fp32", None, "onnx:m#fp32")),
    ],
)
def test_onnx_specs_name_the_row_scheme_in_the_model_id(
    model: str, expected: tuple[str, str, int | None, str]
) -> None:
    assert onnx_spec(model) == expected


@pytest.mark.parametrize("model", ["m#int4", "m@many"])
def test_bad_onnx_specs_say_what_to_do(model: str) -> None:
    with pytest.raises(ConfigError, match="use"):
        onnx_spec(model)


def test_a_model_pooled_otherwise_than_by_the_mean_is_refused(tmp_path: Path) -> None:
    (tmp_path / "1_Pooling").mkdir()
    config = tmp_path / "1_Pooling" / "config.json"
    config.write_text('{"pooling_mode_mean_tokens": true}')
    _check_mean_pooled(tmp_path)
    config.write_text('{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}')
    with pytest.raises(ConfigError, match="not the mean"):
        _check_mean_pooled(tmp_path)
