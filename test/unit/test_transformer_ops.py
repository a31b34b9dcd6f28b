"""RotaryEmbedding, SwiGLU, LinearAttention and CausalConvWithState, converted into tg ops at
import (frontends/onnx/ops_transformer.py, ops_linear_attention.py), against ONNX's reference
evaluator on the combinations the node tests leave out: a 3-D rotary input that is
interleaved, partially rotated and indexed by position ids; grouped-query linear attention
with a per-key decay, a past state and an explicit scale; a causal convolution whose input
is shorter than its history. Each runs on the reference target and compiled for the CPU;
unsupported attributes and shapes are refused in one line naming the node."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.ir.diagnostics import TesselError
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.reference.interpreter import run as run_reference


def _model(
    op: str, opset: int, inputs: dict[str, np.ndarray], consts: dict[str, np.ndarray], outputs: list[str], **attrs
):
    """One node; `inputs` are graph inputs, `consts` initializers, both in the node's order."""
    names = [*inputs, *consts]
    order = attrs.pop("order", names)
    node = helper.make_node(op, order, outputs, **attrs)
    elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64}
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(k, elem[v.dtype], v.shape) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in consts.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _check(model, feed: dict[str, np.ndarray]) -> None:
    expected = ReferenceEvaluator(model).run(None, feed)
    values = list(feed.values())
    result = import_model(model)
    got = run_reference(result.module.clone(), values, result.weights)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
    try:
        got = executable.run(values)
    finally:
        executable.close()
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


def test_rotary_3d_interleaved_partial_with_positions() -> None:
    rng = np.random.default_rng(0)
    batch, seq, heads, head = 2, 3, 2, 8
    x = rng.standard_normal((batch, seq, heads * head)).astype(np.float32)
    positions = np.asarray([[0, 4, 2], [5, 1, 3]], np.int64)
    cos = rng.standard_normal((6, 2)).astype(np.float32)  # rotary_embedding_dim 4 of 8
    sin = rng.standard_normal((6, 2)).astype(np.float32)
    model = _model(
        "RotaryEmbedding",
        23,
        {"input": x, "position_ids": positions},
        {"cos_cache": cos, "sin_cache": sin},
        ["y"],
        order=["input", "cos_cache", "sin_cache", "position_ids"],
        num_heads=heads,
        interleaved=1,
        rotary_embedding_dim=4,
    )
    _check(model, {"input": x, "position_ids": positions})


def test_swiglu_3d_alpha() -> None:
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((2, 3, 5)).astype(np.float32) for _ in range(2))
    _check(_model("SwiGLU", 28, {"a": a, "b": b}, {}, ["y"], alpha=1.7), {"a": a, "b": b})


def test_linear_attention_gqa_per_key_decay_with_past() -> None:
    rng = np.random.default_rng(2)
    batch, steps, q_heads, kv_heads, dk, dv = 1, 3, 4, 2, 4, 3
    feed = {
        "query": rng.standard_normal((batch, steps, q_heads * dk)).astype(np.float32),
        "key": rng.standard_normal((batch, steps, kv_heads * dk)).astype(np.float32) * 0.5,
        "value": rng.standard_normal((batch, steps, kv_heads * dv)).astype(np.float32),
        "past_state": rng.standard_normal((batch, kv_heads, dk, dv)).astype(np.float32),
        "decay": -rng.uniform(0.0, 1.0, (batch, steps, kv_heads * dk)).astype(np.float32),
        "beta": rng.uniform(0.0, 1.0, (batch, steps, kv_heads)).astype(np.float32),
    }
    model = _model(
        "LinearAttention",
        27,
        feed,
        {},
        ["y", "present_state"],
        q_num_heads=q_heads,
        kv_num_heads=kv_heads,
        update_rule="gated_delta",
        scale=0.3,
    )
    _check(model, feed)


def test_causal_conv_input_shorter_than_history() -> None:
    rng = np.random.default_rng(3)
    channels, kernel = 3, 4
    feed = {
        "input": rng.standard_normal((2, channels, 2)).astype(np.float32),
        "past_state": rng.standard_normal((2, channels, kernel - 1)).astype(np.float32),
    }
    consts = {
        "weight": rng.standard_normal((channels, 1, kernel)).astype(np.float32),
        "bias": rng.standard_normal(channels).astype(np.float32),
    }
    model = _model(
        "CausalConvWithState",
        27,
        feed,
        consts,
        ["y", "present_state"],
        order=["input", "weight", "bias", "past_state"],
        activation="silu",
    )
    _check(model, feed)


@pytest.mark.parametrize(
    ("op", "opset", "attrs", "message"),
    [
        ("RotaryEmbedding", 23, {}, "a 3-D input needs num_heads"),
        (
            "LinearAttention",
            27,
            {"q_num_heads": 2, "kv_num_heads": 2, "update_rule": "gated"},
            "requires the decay input",
        ),
    ],
)
def test_refusals_are_one_line(op: str, opset: int, attrs: dict, message: str) -> None:
    x = np.zeros((1, 2, 8), np.float32)
    if op == "RotaryEmbedding":
        cache = np.zeros((1, 2, 4), np.float32)
        model = _model(op, opset, {"input": x}, {"cos_cache": cache, "sin_cache": cache}, ["y"], **attrs)
    else:
        model = _model(op, opset, {"query": x, "key": x, "value": x}, {}, ["y", "present_state"], **attrs)
    with pytest.raises(TesselError) as err:
        import_model(model)
    text = str(err.value)
    assert message in text and op in text and "\n" not in text.strip(), text
