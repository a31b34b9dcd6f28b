"""Vector axes that no power-of-two width divides (ViT's 197 tokens, 18 actions, 6 columns)
get vectors anyway, the last one moved back to end at the axis's end, where every index of
that axis is linear; where one is a floordiv or mod by a block (a packed weight read at
n floordiv 16, n mod 16) the vectors must start at multiples of the width and the axis stays
as before. Each shape compiled for the CPU must compute what the reference computes (the
first version moved dense_packed's last vector too and broke the DQN's 18-way output). A
packed product to 18 columns now computes its whole padded block (no overlap there) and a
slice with overlapping vectors cuts the 18 columns off."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.ir.weights import WeightStore
from tessel.pipelines.tensor import compile_for_cpu, lower
from tessel.targets.reference.interpreter import run

CASES = {
    "attention scores 197x197": (
        """func.func @main(%q: tensor<6x197x64xf32>, %k: tensor<6x64x197xf32>) -> tensor<6x197x197xf32> {
          %s = tg.matmul %q, %k : (tensor<6x197x64xf32>, tensor<6x64x197xf32>) -> tensor<6x197x197xf32>
          func.return %s : tensor<6x197x197xf32>
        }""",
        [(6, 197, 64), (6, 64, 197)],
        True,
    ),
    "exp over 6": (
        """func.func @main(%x: tensor<3x6xf32>) -> tensor<3x6xf32> {
          %y = tg.exp %x : tensor<3x6xf32>
          func.return %y : tensor<3x6xf32>
        }""",
        [(3, 6)],
        True,
    ),
    "dense to 18 (packed weight)": (
        """func.func @main(%x: tensor<2x512xf32>) -> tensor<2x18xf32> {
          %w = tg.weight @w : tensor<512x18xf32>
          %y = tg.matmul %x, %w : (tensor<2x512xf32>, tensor<512x18xf32>) -> tensor<2x18xf32>
          func.return %y : tensor<2x18xf32>
        }""",
        [(2, 512)],
        True,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_odd_vector_axes_compute_what_the_reference_computes(name: str) -> None:
    text, shapes, overlapping = CASES[name]
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    weights = {"w": rng.standard_normal((512, 18)).astype(np.float32)}
    want = run(parse_module(make_context(), text), inputs, weights)[0]

    module = parse_module(make_context(), text)
    lower(module, WeightStore(dict(weights)))
    schedules = [str(op.attributes["kernel.schedule"]) for op in module.walk() if "kernel.schedule" in op.attributes]
    assert any(":clamp" in s for s in schedules) == overlapping, schedules
    if "packed weight" in name:  # read at n floordiv 16: the product's vectors stay on blocks
        assert not any(":clamp" in s for s in schedules if "|acc|" in s), schedules

    executable, _ = compile_for_cpu(parse_module(make_context(), text), WeightStore(dict(weights)), threads=2)
    try:
        got = executable.run(inputs)[0]
    finally:
        executable.close()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * float(np.abs(want).max()))


# ResNet-18's classifier as the tuner reads it back from text: the packed weight's index is
# parsed as a map of symbols, (s0 floordiv 16, s1, s0 mod 16). Its vectors must stay on the
# blocks there too (they overlapped, reading columns 992-999 from the wrong place).
PACKED_TEXT = """
func.func @k0_dense_packed_add(%a: memref<1x512xf32>, %w: memref<63x512x16xf32>, %b: memref<1000xf32>, %y: memref<1x1000xf32>) attributes {kernel.kernel} {
  kernel.compute "dense" %y(o0 = 1, o1 = 1000) reduce(k = 512) combine "add" init 0.000000e+00 : f32 : memref<1x1000xf32> {
  ^bb0(%o0: index, %o1: index, %k: index):
    %x = affine.load %a[0, %k] : memref<1x512xf32>
    %v = affine.load %w[%o1 floordiv 16, %k, %o1 mod 16] : memref<63x512x16xf32>
    %p = arith.mulf %x, %v : f32
    kernel.yield %p : f32
  } then {
  ^bb0(%p0: index, %p1: index, %acc: f32):
    %c = affine.load %b[%p1] : memref<1000xf32>
    %s = arith.addf %acc, %c : f32
    kernel.yield %s : f32
  }
  func.return
}
"""


def test_a_packed_index_parsed_from_text_keeps_its_vectors_on_blocks() -> None:
    from tessel.pipelines.tensor import cpu_default_schedule
    from tessel.tune.task import StageRunner, extract_tasks

    (task,) = extract_tasks(parse_module(make_context(), PACKED_TEXT))
    op, _ = task.compute_op()
    assert not any(loop.clamp for loop in cpu_default_schedule(op).loops)
    runner = StageRunner(task, None, threads=2)
    a, w, b = (np.array(x, copy=True) for x in runner.buffers[:3])
    want = a @ w.transpose(1, 0, 2).reshape(512, 63 * 16)[:, :1000] + b
    np.testing.assert_allclose(runner.run(), want, rtol=1e-4, atol=1e-3)
