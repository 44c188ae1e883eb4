"""Export a packaged sentence-transformers model's transformer to ONNX, optionally int8 per row.

Runs once per model and precision (`tools.onnx_encoder` caches the file), in a process that
has torch; the query path only loads the file. The graph takes `input_ids`,
`attention_mask` and `token_type_ids` and returns `last_hidden_state`; pooling stays in
numpy so span pooling (`tools.span_pooling`) reads the same token states.

`int8` quantises every weight matrix per output channel and each token's activations on
their own (one scale per row, computed in the graph): unlike torch's and ONNX Runtime's
dynamic quantisation, which scale activations by the whole batch, no token's vector then
depends on the other texts of its batch or on padding. The integer products are exact, so
a text embedded alone or in any batch gives the same vector.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
OPSET = 17
ZERO_POINT = 128
"""Activations are stored as uint8 around this zero point: u8 x s8 is the fast (VNNI) path."""


def export_transformer(model_dir: Path, target: Path) -> None:
    """Export the fp32 transformer of the model in `model_dir` to `target` (torch.onnx)."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # no "Loading weights" bar on a CLI's stderr
    try:
        model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    finally:
        if shown:
            hf_logging.enable_progress_bar()

    class TokenStates(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            out = self.inner(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return out.last_hidden_state

    ids = torch.tensor([[101, 2023, 2003, 102], [101, 2023, 102, 0]])
    example = (ids, (ids != 0).long(), torch.zeros_like(ids))
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, OUTPUT)}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # the exporter's notes on indexing and tracing
        torch.onnx.export(
            TokenStates(model),
            example,
            str(target),
            dynamo=False,
            input_names=list(INPUTS),
            output_names=[OUTPUT],
            dynamic_axes=axes,
            opset_version=OPSET,
        )


def quantise_rows(source: Path, target: Path) -> int:
    """Write `source` with each weight MatMul in int8, activations scaled per row.

    Returns how many MatMuls were quantised. Products of two activations (attention
    scores) stay fp32.
    """
    import onnx

    model = onnx.load(str(source))
    graph = model.graph
    weights = {init.name: init for init in graph.initializer}
    nodes: list[Any] = []
    quantised: dict[str, tuple[str, str]] = {}  # activation -> (its uint8 rows, their scales)
    count = 0
    for node in graph.node:
        weight = weights.get(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None or len(weight.dims) != 2:
            nodes.append(node)
            continue
        activation = node.input[0]
        if activation not in quantised:
            quantised[activation] = _quantise_activation(activation, nodes, len(quantised))
        graph.initializer.extend(
            _integer_matmul(node.output[0], weight, quantised[activation], nodes)
        )
        count += 1
    graph.initializer.extend(_row_constants())
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in nodes for name in node.input}
    kept = [init for init in graph.initializer if init.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
    return count


def _integer_matmul(name: str, weight: Any, rows: tuple[str, str], nodes: list[Any]) -> list[Any]:
    """Append the int8 product giving `name`; return its weight initializers.

    The weight is quantised per output channel; the integer product is scaled back by the
    activation row's scale and the channel's.
    """
    import onnx
    from onnx import numpy_helper

    matrix = numpy_helper.to_array(weight).astype(np.float32)
    channel = np.maximum(np.abs(matrix).max(axis=0), 1e-12) / 127.0
    quantised_rows, scales = rows
    nodes.extend(
        [
            _node("MatMulInteger", [quantised_rows, f"{name}.w8", "row.zero"], f"{name}.i32"),
            _node("Cast", [f"{name}.i32"], f"{name}.f32", to=onnx.TensorProto.FLOAT),
            _node("Mul", [f"{name}.f32", scales], f"{name}.rows"),
            _node("Mul", [f"{name}.rows", f"{name}.wscale"], name),
        ]
    )
    return [
        numpy_helper.from_array(np.round(matrix / channel).astype(np.int8), f"{name}.w8"),
        numpy_helper.from_array(channel.astype(np.float32), f"{name}.wscale"),
    ]


def _row_constants() -> list[Any]:
    from onnx import numpy_helper

    return [
        numpy_helper.from_array(np.array(ZERO_POINT, np.uint8), "row.zero"),
        numpy_helper.from_array(np.array(ZERO_POINT, np.float32), "row.zero.f"),
        numpy_helper.from_array(np.array(1e-12, np.float32), "row.eps"),
        numpy_helper.from_array(np.array(127.0, np.float32), "row.steps"),
    ]


def _quantise_activation(activation: str, nodes: list[Any], index: int) -> tuple[str, str]:
    """Append the nodes that quantise `activation` per row; return (uint8 rows, scales)."""
    import onnx

    p = f"rows{index}"
    nodes.extend(
        [
            _node("Abs", [activation], f"{p}.abs"),
            _node("ReduceMax", [f"{p}.abs"], f"{p}.max", axes=[-1], keepdims=1),
            _node("Max", [f"{p}.max", "row.eps"], f"{p}.safe"),
            _node("Div", [f"{p}.safe", "row.steps"], f"{p}.scale"),
            _node("Div", [activation, f"{p}.scale"], f"{p}.scaled"),
            _node("Round", [f"{p}.scaled"], f"{p}.round"),
            _node("Add", [f"{p}.round", "row.zero.f"], f"{p}.shift"),
            _node("Cast", [f"{p}.shift"], f"{p}.u8", to=onnx.TensorProto.UINT8),
        ]
    )
    return f"{p}.u8", f"{p}.scale"


def _node(op: str, inputs: list[str], output: str, **attributes: Any) -> Any:
    from onnx import helper

    return helper.make_node(op, inputs, [output], name=output, **attributes)
