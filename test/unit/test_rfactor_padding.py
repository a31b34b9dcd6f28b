"""Row reductions split into vector partials (passes/tg/lowering/stages.py's rfactor) over
rows that do not fill the last step (1500 = 46 x 32 + 28, 197 = 12 x 16 + 5): where a
partial is the row's own load, the lanes past the row's end read the combine's identity
as the load's padding (-inf for a max, +inf for a min, 0 for a sum) instead of being
compared and selected. Against numpy on rows where a wrong padding would show: all
negative for the max (a 0 would win), all positive for the min, a softmax with -inf
entries (its sum pads with 0, its max with -inf)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu


def _run(op: str, x: np.ndarray, **attrs) -> np.ndarray:
    inputs = ["x"]
    if op in ("ReduceMax", "ReduceMin", "ReduceSum"):
        attrs = {"keepdims": 1, **attrs}
        node = helper.make_node(op, ["x", "axes"], ["y"], **attrs)
        init = [helper.make_tensor("axes", TensorProto.INT64, [1], [-1])]
    else:
        node = helper.make_node(op, inputs, ["y"], axis=-1)
        init = []
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    result = import_model(model)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    try:
        return executable.run([x])[0]
    finally:
        executable.close()


@pytest.mark.parametrize("shape", [(3, 1500), (5, 197)])
def test_row_reductions_pad_with_their_identity(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(sum(shape))
    negative = -rng.uniform(1.0, 5.0, shape).astype(np.float32)
    np.testing.assert_array_equal(_run("ReduceMax", negative), negative.max(axis=-1, keepdims=True))
    np.testing.assert_array_equal(_run("ReduceMin", -negative), (-negative).min(axis=-1, keepdims=True))
    np.testing.assert_allclose(
        _run("ReduceSum", negative), negative.sum(axis=-1, keepdims=True, dtype=np.float64), rtol=1e-5
    )


@pytest.mark.parametrize("shape", [(3, 1500), (5, 197)])
def test_softmax_rows_with_minus_infinity(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32) - 10.0  # every value below the 0 padding
    x[:, ::3] = -np.inf
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(_run("Softmax", x), e / e.sum(axis=-1, keepdims=True), rtol=1e-5, atol=1e-7)
