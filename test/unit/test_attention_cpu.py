"""float32 ONNX Attention compiled for the CPU (passes/tg/lowering/attention.py's fused
form: keys transposed once, scale after the sum, the division after the weighted sum,
no guard stage) against ONNX's reference evaluator, on what the node tests leave out:
key counts that are not a multiple of the vector (the scores' last vector overlaps, the
row statistics' last partials are guarded), grouped-query heads, a float mask with rows
that attend nothing (output 0), a causal frontier with an offset, and longer rows than
the node tests' (several vector steps, the register tile's rows clamped)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from tessel.frontends.onnx import import_model
from tessel.pipelines.tensor import compile_for_cpu


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, **attrs):
    inputs = {"q": q, "k": k, "v": v} | ({"mask": mask} if mask is not None else {})
    node = helper.make_node("Attention", list(inputs), ["y"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10
    return model, inputs


CASES = {
    # (batch, query heads, kv heads, queries, keys, head size), mask, attributes
    "odd_keys": ((1, 2, 2, 37, 45, 16), None, {}),
    "gqa_scaled": ((2, 4, 2, 20, 70, 8), None, {"scale": 0.3}),
    "causal_offset": ((1, 2, 1, 11, 29, 8), None, {"is_causal": 1}),
    "float_mask_empty_rows": ((1, 2, 2, 9, 33, 8), "float", {}),
    "long_rows": ((1, 1, 1, 64, 300, 64), None, {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_attention_f32_matches_reference(name: str) -> None:
    (b, hq, hk, s, length, d), mask_kind, attrs = CASES[name]
    rng = np.random.default_rng(len(name))
    q = rng.standard_normal((b, hq, s, d)).astype(np.float32)
    k = rng.standard_normal((b, hk, length, d)).astype(np.float32)
    v = rng.standard_normal((b, hk, length, d)).astype(np.float32)
    mask = None
    if mask_kind == "float":
        mask = rng.standard_normal((s, length)).astype(np.float32)
        mask[2] = -np.inf  # query 2 attends nothing: its output is 0
        mask[5, ::2] = -np.inf
    model, inputs = _attention(q, k, v, mask, **attrs)
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    result = import_model(model)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=2)
    try:
        (got,) = executable.run(list(inputs.values()))
    finally:
        executable.close()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    if mask is not None:
        assert not got[:, :, 2].any(), "a row that attends nothing must be 0"
