"""Conv and ConvTranspose in every spatial rank against onnxruntime, on the reference
semantics and compiled for the CPU (the ONNX node tests have 2-D convolutions only and
one 3-D transposed one): 1-D, 2-D and 3-D with auto_pad, strides, dilations, groups,
bias, output_padding and output_shape."""

from __future__ import annotations

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu
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
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {"X": x})
    result = import_model(model)
    (got,) = run(result.module, [x], result.weights)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    if len(x_shape) == 5:  # the N-D kernels (1-D and 2-D take the 2-D path the node tests cover)
        executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
        try:
            (compiled,) = executable.run([x])
        finally:
            executable.close()
        np.testing.assert_allclose(compiled, expected, rtol=1e-4, atol=1e-4)
