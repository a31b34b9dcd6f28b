"""Identical stages lowered once (passes/kernel/to_loops.py: used_buffers, stage_key).

A stage function takes only the buffers its stage reads or writes, so the stages of two
different kernels that compute the same thing (a softmax's and a log-softmax's row max;
ResNet-18's Winograd transforms under relu and under add + relu) are the same function;
kernel-to-loops lowers the first and copies it for the rest, and the LLVM emitter then
compiles one module for all of them. Differentially: the copies compute what the reference
computes, a stage with its own written schedule is never replaced by a copy, and stages
that differ stay different."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func

import tessel.passes.kernel.to_loops as to_loops
from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.cpu.llvm_modules import emit_stage_modules
from tessel.targets.reference.interpreter import run

TWO_KERNELS = """
func.func @main(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %a = tg.softmax %x {axis = 1 : i64} : tensor<64x64xf32>
  %b = tg.log_softmax %y {axis = 1 : i64} : tensor<64x64xf32>
  func.return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}
"""


def _kernels(text: str = TWO_KERNELS):
    """The module as kernel-to-loops receives it (512-bit vectors, whatever the host)."""
    module = parse_module(make_context(), text)
    lower(module, WeightStore({}), stop_after="kernel-simplify-indices", vector_bits=512)
    return module


def _stages(module) -> dict[str, str]:
    """Stage name -> its body printed with the name erased."""
    out = {}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and "kernel.stage" in op.attributes:
            out[op.sym_name.data] = str(op).replace(op.sym_name.data, "STAGE")
    return out


def test_the_same_stage_in_two_kernels_is_lowered_once(monkeypatch) -> None:
    module = _kernels()
    lowered: list[str] = []
    real = to_loops.stage_function

    def counting(name, *args, **kwargs):
        lowered.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(to_loops, "stage_function", counting)
    to_loops.KernelToLoops(vector_bits=512).apply(make_context(), module)
    stages = _stages(module)
    # The log-softmax's row max (s0: partial maxima, s1: their max) is the softmax's.
    assert stages["k1_log_softmax__s0"] == stages["k0_softmax__s0"]
    assert stages["k1_log_softmax__s1"] == stages["k0_softmax__s1"]
    assert "k1_log_softmax__s0" not in lowered and "k1_log_softmax__s1" not in lowered
    # The rest differ (a sum of exp(x - max) against one of exp(x); the outputs) and are lowered.
    assert {"k1_log_softmax__s2", "k1_log_softmax__s3", "k1_log_softmax__s4"} <= set(lowered)
    assert len(set(stages.values())) == len(lowered)
    # The LLVM modules of the copies are the same text: compiled once.
    modules, _ = emit_stage_modules(module)
    assert modules["k1_log_softmax__s0"] == modules["k0_softmax__s0"]


def test_stage_functions_take_only_the_buffers_they_use() -> None:
    module = _kernels()
    to_loops.KernelToLoops(vector_bits=512).apply(make_context(), module)
    args = {
        op.sym_name.data: [str(a.type) for a in op.body.block.args]
        for op in module.walk()
        if isinstance(op, func.FuncOp) and "kernel.stage" in op.attributes
    }
    # Row max: reads x, writes the 16 partial maxima per row; never sees the output or the sums.
    assert args["k0_softmax__s0"] == ["memref<64x64xf32>", "memref<64x1x16xf32>", "index", "index"]
    # exp(x - max) to the output: x, the output, the max.
    assert args["k0_softmax__s2"] == ["memref<64x64xf32>", "memref<64x64xf32>", "memref<64x1xf32>", "index", "index"]


def test_a_written_schedule_is_not_replaced_by_a_copy() -> None:
    module = _kernels()
    schedule = parse_module(
        make_context(),
        """
        sched.stage "k1_log_softmax__s0" {
          %o0, %o1, %rf, %r0 = sched.axes ["o0", "o1", "rf", "r0"]
        }
        """,
    )
    for op in list(schedule.body.block.ops):
        op.detach()
        module.body.block.add_op(op)
    to_loops.KernelToLoops(vector_bits=512).apply(make_context(), module)
    stages = _stages(module)
    assert stages["k1_log_softmax__s0"] != stages["k0_softmax__s0"]
    assert 'kernel.schedule = "o0/1x64 o1/1x1 rf/1x16 r0/1x4"' in stages["k1_log_softmax__s0"]


def test_copied_stages_compute_the_reference() -> None:
    rng = np.random.default_rng(3)
    inputs = [(rng.standard_normal((64, 64)) * 4).astype(np.float32) for _ in range(2)]
    want = run(parse_module(make_context(), TWO_KERNELS), inputs, {})
    executable, report = compile_for_cpu(parse_module(make_context(), TWO_KERNELS), WeightStore({}), threads=2)
    try:
        got = executable.run(inputs)
    finally:
        executable.close()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    assert "stages identical to another, compiled once" in report.code


SIGNED_ZEROS = """
func.func @main(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %a = tg.clip %x {min = 0.000000e+00 : f32} : tensor<64x64xf32>
  %b = tg.clip %y {min = -0.000000e+00 : f32} : tensor<64x64xf32>
  func.return %a, %b : tensor<64x64xf32>, tensor<64x64xf32>
}
"""


def test_stages_that_differ_in_a_zero_sign_stay_apart() -> None:
    """The stage key compares the bodies' constants by value, floats by their bits: clips
    at 0.0 and at -0.0 (equal as Python floats) are different stages, and each computes
    its own signed zero."""
    module = _kernels(SIGNED_ZEROS)
    computes = [op for op in module.walk() if type(op).__name__ == "ComputeOp"]
    keys = [to_loops.stage_key(op, list(op.operands)) for op in computes]
    assert len(keys) == 2 and keys[0] != keys[1]
    x = -np.ones((64, 64), np.float32)
    executable, _ = compile_for_cpu(parse_module(make_context(), SIGNED_ZEROS), WeightStore({}), threads=1)
    try:
        a, b = executable.run([x, x])
    finally:
        executable.close()
    assert not np.signbit(a).any() and np.signbit(b).all()  # clipped to 0.0 and to -0.0


SLICES = """
func.func @main(%x: tensor<4x10x8xf32>, %y: tensor<4x12x8xf32>) -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %a = tg.slice %x {starts = array<i64: 0, 1, 0>, steps = array<i64: 1, 1, 1>} : tensor<4x10x8xf32> -> tensor<4x8x8xf32>
  %b = tg.slice %y {starts = array<i64: 0, 1, 0>, steps = array<i64: 1, 1, 1>} : tensor<4x12x8xf32> -> tensor<4x8x8xf32>
  %c = tg.exp %a : tensor<4x8x8xf32>
  %d = tg.exp %b : tensor<4x8x8xf32>
  func.return %c, %d : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}
"""


def test_stages_over_buffers_of_other_shapes_stay_apart() -> None:
    """The same body over inputs of different shapes (r3d_18's depth slices of 10 and 8
    planes, each read at the same indices) is different code: its addresses stride by the
    shape. A key without the buffers' types shared them, and r3d_18 computed wrong logits."""
    module = _kernels(SLICES)
    computes = [op for op in module.walk() if type(op).__name__ == "ComputeOp"]
    keys = [to_loops.stage_key(op, list(op.operands)) for op in computes]
    assert len(keys) == 2 and keys[0] != keys[1]
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 10, 8)).astype(np.float32), rng.standard_normal((4, 12, 8)).astype(np.float32)
    executable, _ = compile_for_cpu(parse_module(make_context(), SLICES), WeightStore({}), threads=1)
    try:
        c, d = executable.run([x, y])
    finally:
        executable.close()
    np.testing.assert_allclose(c, np.exp(x[:, 1:9]), rtol=1e-6)
    np.testing.assert_allclose(d, np.exp(y[:, 1:9]), rtol=1e-6)
