"""Row fusion (passes/kernel/loops/row_fusion.py), differentially: kernels whose stages work
row by row over inputs too big to stay cached between stages (whisper's softmax rows,
layer norms over 1500 tokens, a log-softmax with rows that do not fill whole vectors, a
softmax over the middle axis) compiled for the CPU must compute what the reference
semantics compute, and run as one fused stage each."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.reference.interpreter import run

CASES = {
    "softmax 6x300x1500": (
        """func.func @main(%x: tensor<6x300x1500xf32>) -> tensor<6x300x1500xf32> {
          %y = tg.softmax %x {axis = 2 : i64} : tensor<6x300x1500xf32>
          func.return %y : tensor<6x300x1500xf32>
        }""",
        [(6, 300, 1500)],
    ),
    "layer norm 1500x384": (
        """func.func @main(%x: tensor<1500x384xf32>, %g: tensor<384xf32>, %b: tensor<384xf32>) -> tensor<1500x384xf32> {
          %y = tg.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f64} : (tensor<1500x384xf32>, tensor<384xf32>, tensor<384xf32>) -> tensor<1500x384xf32>
          func.return %y : tensor<1500x384xf32>
        }""",
        [(1500, 384), (384,), (384,)],
    ),
    "log softmax 700x1000": (
        """func.func @main(%x: tensor<700x1000xf32>) -> tensor<700x1000xf32> {
          %y = tg.log_softmax %x {axis = 1 : i64} : tensor<700x1000xf32>
          func.return %y : tensor<700x1000xf32>
        }""",
        [(700, 1000)],
    ),
}


def _schedules(text: str) -> list[str]:
    module = parse_module(make_context(), text)
    lower(module, WeightStore({}))
    return [str(op.attributes["kernel.schedule"]) for op in module.walk() if "kernel.schedule" in op.attributes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_fused_rows_compute_what_the_reference_computes(name: str) -> None:
    text, shapes = CASES[name]
    rng = np.random.default_rng(2)
    inputs = [(rng.standard_normal(s) * 4).astype(np.float32) for s in shapes]
    want = run(parse_module(make_context(), text), inputs, {})[0]
    schedules = _schedules(text)
    assert len(schedules) == 1 and schedules[0].startswith('"rows'), schedules
    executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore({}), threads=2)
    try:
        got = executable.run(inputs)[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 * float(np.abs(want).max()))


def test_a_softmax_over_a_middle_axis_is_not_rows() -> None:
    """Over axis 1 of [64, 512, 40] the reduced axis is not the innermost: the stages'
    shared leading axis is the batch of 64, and each stage's row (512 x 40) is what it
    computes; fused or not, the values must be the reference's."""
    text = """func.func @main(%x: tensor<64x512x40xf32>) -> tensor<64x512x40xf32> {
      %y = tg.softmax %x {axis = 1 : i64} : tensor<64x512x40xf32>
      func.return %y : tensor<64x512x40xf32>
    }"""
    x = np.random.default_rng(4).standard_normal((64, 512, 40)).astype(np.float32)
    want = run(parse_module(make_context(), text), [x], {})[0]
    executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore({}), threads=2)
    try:
        got = executable.run([x])[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7)
