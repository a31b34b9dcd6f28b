"""Vectors along an outer axis (passes/kernel/loops/transfer.py): the stage's loads and
store along it, as vector.transfer_read/write and then per-lane moves (or, under a tail's
mask, masked gathers and scatters), compute what numpy computes, for whole vectors and a
masked tail, over i8 and f32 buffers."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from xdsl.dialects import func

from tessel.dialects.context import make_context
from tessel.ir.source import parse_module
from tessel.passes.kernel.to_loops import KernelToLoops
from tessel.targets.cpu.jit import CompiledModule
from tessel.targets.cpu.llvm_emit import FunctionEmitter

STAGE = """
func.func @scale(%x: memref<2x20x3xi8>, %r: memref<2x20x3xf32>, %y: memref<2x20x3xf32>) attributes {kernel.kernel} {
  kernel.compute "scale" %y(o0 = 2, o1 = 20, o2 = 3) lanes(o1) : memref<2x20x3xf32> {
  ^bb0(%o0: index, %o1: index, %o2: index):
    %a = affine.load %x[%o0, %o1, %o2] : memref<2x20x3xi8>
    %b = affine.load %r[%o0, %o1, %o2] : memref<2x20x3xf32>
    %f = arith.sitofp %a : i8 to f32
    %s = arith.addf %f, %b : f32
    kernel.yield %s : f32
  }
  func.return
}
"""

TAIL = """
sched.stage "scale__s0" {
  %o0, %o1, %o2 = sched.axes ["o0", "o1", "o2"]
  %o1.o, %o1.i = sched.split %o1 by 16
  sched.reorder %o0, %o2, %o1.o, %o1.i
  sched.vectorize %o1.i
}
"""


@pytest.mark.parametrize("tail", [False, True], ids=["whole-vectors", "masked-tail"])
def test_lanes_along_an_outer_axis_compute_the_reference(tail: bool) -> None:
    module = parse_module(make_context(), STAGE + (TAIL if tail else ""))
    KernelToLoops(vector_bits=512).apply(make_context(), module)
    text = str(module)
    assert "vector.transfer_read" in text and "vector.transfer_write" in text
    assert ("vector.create_mask" in text) == tail
    stage = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == "scale__s0")
    declares: set[str] = set()
    body = FunctionEmitter(stage, declares).emit()
    ir = "\n".join([*sorted(declares), body, 'attributes #0 = { "min-legal-vector-width"="512" }']) + "\n"
    assert ("llvm.masked.scatter" in ir) == tail  # whole vectors: a store per lane
    compiled = CompiledModule(ir, use_cache=False)
    rng = np.random.default_rng(7)
    x = rng.integers(-128, 128, (2, 20, 3)).astype(np.int8)
    r = rng.standard_normal((2, 20, 3)).astype(np.float32)
    y = np.full((2, 20, 3), np.nan, np.float32)
    call = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 3, ctypes.c_int64, ctypes.c_int64)(compiled.address("scale__s0"))
    call(x.ctypes.data, r.ctypes.data, y.ctypes.data, 0, 1)
    np.testing.assert_array_equal(y, x.astype(np.float32) + r)
