"""Conv and ConvTranspose in every spatial rank against onnxruntime, on the reference
semantics and compiled for the CPU (the ONNX node tests have 2-D convolutions only and
one 3-D transposed one): 1-D, 2-D and 3-D with auto_pad, strides, dilations, groups,
bias, output_padding and output_shape."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.dialects import tg
from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.reference.interpreter import run


def _model(op: str, x_shape, w_shape, attrs: dict, bias: bool):
    rng = np.random.default_rng(sum(x_shape) + sum(w_shape))
    inits = {"W": rng.standard_normal(w_shape).astype(np.float32)}
    if bias:
        out_channels = w_shape[0] if op == "Conv" else w_shape[1] * attrs.get("group", 1)
        inits["B"] = rng.standard_normal(out_channels).astype(np.float32)
    node = helper.make_node(op, ["X", *inits], ["Y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    return model, rng.standard_normal(x_shape).astype(np.float32)


def _onnxruntime(model, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"X": x})[0]


def _compiled(result, x: np.ndarray, threads: int) -> np.ndarray:
    """The imported model compiled for the CPU, run on x."""
    executable, _ = compile_for_cpu(result.module, result.weights, threads=threads)
    try:
        return executable.run([x])[0]
    finally:
        executable.close()


CASES = [
    ("Conv", (2, 4, 9), (6, 2, 3), {"group": 2, "strides": [2], "pads": [1, 2]}, True),
    ("Conv", (1, 3, 10), (4, 3, 3), {"auto_pad": "SAME_LOWER", "strides": [3]}, False),
    ("Conv", (1, 3, 7, 8), (4, 3, 3, 2), {"auto_pad": "SAME_UPPER", "strides": [2, 3]}, True),
    ("Conv", (2, 4, 5, 6, 7), (6, 2, 3, 2, 3), {"group": 2, "pads": [1, 0, 1, 0, 1, 2], "strides": [1, 2, 2]}, True),
    ("Conv", (1, 2, 6, 5, 6), (3, 2, 2, 3, 2), {"dilations": [2, 1, 2], "auto_pad": "VALID"}, False),
    ("ConvTranspose", (1, 3, 6), (3, 2, 3), {"strides": [2], "output_padding": [1]}, True),
    (
        "ConvTranspose",
        (2, 4, 3, 4, 3),
        (4, 1, 3, 2, 3),
        {"group": 2, "strides": [2, 1, 2], "pads": [1, 0, 0, 1, 0, 1]},
        True,
    ),
    ("ConvTranspose", (1, 2, 3, 3, 2), (2, 3, 2, 2, 2), {"strides": [2, 2, 3], "output_shape": [5, 6, 4]}, False),
    (
        "ConvTranspose",
        (1, 2, 4, 3, 3),
        (2, 2, 3, 3, 2),
        {"dilations": [2, 1, 2], "auto_pad": "SAME_UPPER", "strides": [1, 2, 1]},
        True,
    ),
]


@pytest.mark.parametrize(
    ("op", "x_shape", "w_shape", "attrs", "bias"),
    CASES,
    ids=[f"{c[0]}-{len(c[1]) - 2}d-{i}" for i, c in enumerate(CASES)],
)
def test_convolution_matches_onnxruntime(op: str, x_shape, w_shape, attrs: dict, bias: bool) -> None:
    model, x = _model(op, x_shape, w_shape, attrs, bias)
    expected = _onnxruntime(model, x)
    result = import_model(model)
    (got,) = run(result.module, [x], result.weights)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    if len(x_shape) == 5:  # the N-D kernels (1-D and 2-D take the 2-D path the node tests cover)
        np.testing.assert_allclose(_compiled(result, x, threads=1), expected, rtol=1e-4, atol=1e-4)


DEPTHWISE = [  # (input shape, kernel, strides, pads): a padded copy (taps / stride^2 >= 9) or padded loads
    ((1, 24, 9, 9), 3, [1, 1], [1, 1, 1, 1]),  # copy; 24 channels: one and a half blocks
    ((1, 24, 10, 9), 3, [2, 2], [1, 1, 1, 1]),  # padded loads
    ((1, 40, 7, 7), 5, [1, 1], [2, 2, 2, 2]),  # copy: MNASNet's last stage, every output a border one
    ((1, 40, 9, 11), 5, [2, 2], [2, 2, 2, 2]),  # padded loads (6.25 per input element)
    ((1, 16, 8, 8), 3, [1, 1], [0, 1, 1, 0]),  # copy, asymmetric padding
    ((1, 16, 12, 12), 3, [1, 2], [1, 1, 1, 1]),  # padded loads (4.5 per input element)
]


def _then_relu_and_conv(model, c: int):  # noqa: ANN001, ANN202 - an onnx ModelProto
    """The model with a relu and a 1x1 convolution after its Conv: a neighbour that keeps a
    depthwise layer blocked (tg-layout's unblocked_depthwise)."""
    node = model.graph.node[0]
    node.output[0] = "D"
    w = np.random.default_rng(c).standard_normal((c, c, 1, 1)).astype(np.float32)
    model.graph.initializer.append(numpy_helper.from_array(w, "W1"))
    model.graph.node.extend([helper.make_node("Relu", ["D"], ["R"]), helper.make_node("Conv", ["R", "W1"], ["Y"])])
    return model


@pytest.mark.parametrize("then_conv", [False, True], ids=["alone", "then-conv"])
@pytest.mark.parametrize(("x_shape", "k", "strides", "pads"), DEPTHWISE, ids=[str(i) for i in range(len(DEPTHWISE))])
def test_depthwise_borders_match_onnxruntime(
    x_shape, k: int, strides: list[int], pads: list[int], then_conv: bool
) -> None:
    """Depthwise convolutions compiled for the CPU give onnxruntime's result at every
    border: blocked (conv_stages.py) over a padded copy of the input or through padded
    loads, and, alone with unit row stride and 3x3 taps, in NCHW (tg-layout leaves them
    there); followed by a convolution, every one is blocked."""
    c = x_shape[1]
    model, x = _model("Conv", x_shape, (c, 1, k, k), {"group": c, "strides": strides, "pads": pads}, True)
    if then_conv:
        model = _then_relu_and_conv(model, c)
    result = import_model(model)
    lowered = import_model(model)
    lower(lowered.module, lowered.weights, stop_after="tg-layout")
    blocked = any(isinstance(op, tg.DepthwiseConv2dNchwcOp) for op in lowered.module.walk())
    assert blocked == (then_conv or k > 3 or strides[1] != 1)
    compiled = _compiled(result, x, threads=2)
    np.testing.assert_allclose(compiled, _onnxruntime(model, x), rtol=1e-4, atol=1e-4)
