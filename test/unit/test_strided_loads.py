"""Loads whose last index steps by 2-4 per vector lane (passes/kernel/loops/lane_body.py
`_strided_load`: one wide load and a shuffle instead of a scalar load per lane): stride-2,
-3 and -4 convolutions left in NCHW (3 output channels, too few for a channel block),
strided slices and pools, against onnx.reference. Widths are chosen so that some rows end
exactly where the wide load's last element would fall past them (its lanes then masked)
and some do not; the buffers' last rows are the ones a wrong mask would read past."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu


def _check(nodes: list, x: np.ndarray, inits: list | None = None) -> None:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits or [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    (want,) = ReferenceEvaluator(model).run(None, {"x": x})
    result = import_model(model)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    try:
        got = executable.run([x])[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


@pytest.mark.parametrize("stride", [2, 3, 4])
@pytest.mark.parametrize("width", [64, 67, 98])
def test_strided_convolution_in_nchw(stride: int, width: int) -> None:
    rng = np.random.default_rng(stride * width)
    x = rng.standard_normal((1, 5, 9, width)).astype(np.float32)
    w = numpy_helper.from_array(rng.standard_normal((3, 5, 3, 3)).astype(np.float32), "w")
    conv = helper.make_node("Conv", ["x", "w"], ["y"], strides=[stride, stride], pads=[0, 0, 0, 0])
    _check([conv], x, [w])


@pytest.mark.parametrize("step", [2, 3, 4])
def test_strided_slice(step: int) -> None:
    x = np.random.default_rng(step).standard_normal((3, 7, 64)).astype(np.float32)
    inits = [
        helper.make_tensor("starts", TensorProto.INT64, [1], [1]),
        helper.make_tensor("ends", TensorProto.INT64, [1], [64]),
        helper.make_tensor("axes", TensorProto.INT64, [1], [2]),
        helper.make_tensor("steps", TensorProto.INT64, [1], [step]),
    ]
    node = helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])
    _check([node], x, inits)


@pytest.mark.parametrize("width", [64, 66])
def test_stride_two_pools(width: int) -> None:
    x = np.random.default_rng(width).standard_normal((1, 3, 10, width)).astype(np.float32)
    _check([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], x)
    _check([helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2])], x)
