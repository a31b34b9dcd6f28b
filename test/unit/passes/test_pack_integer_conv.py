"""tg-pack-integer-conv and the kernel.dot4 convolution it leads to: ONNX ConvInteger
models (uint8 and int8 inputs, any zero point, channels that do not fill a word of four
or a block of 16, strides, dilations, asymmetric padding, outputs narrower than a vector)
compiled for the CPU give exactly the int32 result of the reference semantics, both with
the CPU's vpdpbusd (where it has one) and with the generic code other CPUs get."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.passes import PassPipeline

from tessel.dialects import kernel, tg
from tessel.dialects.context import make_context
from tessel.frontends.onnx import import_model
from tessel.ir.weights import WeightStore, with_weights
from tessel.passes.tg.pack_integer_conv import TgPackIntegerConv
from tessel.pipelines.tensor import compile_for_cpu
from tessel.targets.cpu import cpu_target
from tessel.targets.reference.interpreter import run

# (input channels, output channels, height, width, kernel, stride, pads, dilation, input type, zero point)
CASES = [
    (3, 16, 9, 9, 3, 2, [1, 1, 1, 1], 1, np.uint8, 7),
    (8, 20, 7, 6, 3, 1, [1, 0, 2, 1], 1, np.int8, -5),
    (16, 32, 5, 5, 1, 1, [0, 0, 0, 0], 1, np.int8, 0),
    (4, 8, 2, 3, 3, 1, [2, 2, 2, 2], 2, np.uint8, 255),
    (5, 64, 14, 14, 3, 1, [1, 1, 1, 1], 1, np.int8, -128),
]


def _conv_integer(case: tuple, rng: np.random.Generator) -> tuple[onnx.ModelProto, np.ndarray]:
    c, m, h, w, k, stride, pads, dilation, dtype, zero = case
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max + 1, (1, c, h, w)).astype(dtype)
    weights = rng.integers(-128, 128, (m, c, k, k)).astype(np.int8)
    inits = [
        numpy_helper.from_array(weights, "w"),
        numpy_helper.from_array(np.array(zero, dtype), "xz"),
        numpy_helper.from_array(np.array(0, np.int8), "wz"),
    ]
    node = helper.make_node(
        "ConvInteger", ["x", "w", "xz", "wz"], ["y"], strides=[stride] * 2, pads=pads, dilations=[dilation] * 2
    )
    elem = TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8
    graph = helper.make_graph(
        [node],
        "conv_integer",
        [helper.make_tensor_value_info("x", elem, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.INT32, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), x


@pytest.mark.parametrize("generic", [False, True], ids=["host", "generic"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_packed_convolution_is_exact(case: int, generic: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if generic:  # the code a CPU without VNNI gets, checked on this one
        monkeypatch.setattr(cpu_target.CpuTarget, "dot4_lanes", property(lambda self: frozenset()))
    model, x = _conv_integer(CASES[case], np.random.default_rng(case))
    result = import_model(model)
    expected = run(result.module.clone(), [x], result.weights)[0]
    executable, _ = compile_for_cpu(result.module, WeightStore(result.weights), threads=2)
    try:
        assert any(isinstance(op, kernel.Dot4Op) for op in executable.module.walk())
        np.testing.assert_array_equal(executable.run([x])[0], expected)
    finally:
        executable.close()


def test_rewrite_keeps_the_reference_result() -> None:
    """The rewritten graph (packed weights, offset) means what the original meant."""
    model, x = _conv_integer(CASES[1], np.random.default_rng(7))
    result = import_model(model)
    expected = run(result.module.clone(), [x], result.weights)[0]
    store = WeightStore(result.weights)
    PassPipeline(with_weights((TgPackIntegerConv(),), store)).apply(make_context(), result.module)
    ops = {type(op) for op in result.module.walk()}
    assert tg.Conv2dIntegerPackedOp in ops and tg.Conv2dIntegerOp not in ops
    np.testing.assert_array_equal(run(result.module, [x], store)[0], expected)


def test_nonzero_weight_zero_point_is_left_alone() -> None:
    """vpdpbusd cannot subtract a weight zero point: such a convolution stays as it is."""
    model, x = _conv_integer(CASES[0], np.random.default_rng(1))
    for init in model.graph.initializer:
        if init.name == "wz":
            init.CopyFrom(numpy_helper.from_array(np.array(3, np.int8), "wz"))
    result = import_model(model)
    store = WeightStore(result.weights)
    PassPipeline(with_weights((TgPackIntegerConv(),), store)).apply(make_context(), result.module)
    assert any(isinstance(op, tg.Conv2dIntegerOp) for op in result.module.walk())


DOT4_STAGE = """
func.func @dot4(%x: memref<4x2xi32>, %w: memref<2x16xi32>, %y: memref<4x16xi32>) attributes {kernel.kernel} {
  kernel.compute "conv_dot4" %y(o0 = 4, o1 = 16) reduce(c4 = 2) combine "add" init 0 : i32 lanes(o1) : memref<4x16xi32> {
  ^bb0(%o0: index, %o1: index, %c4: index):
    %a = affine.load %x[%o0, %c4] : memref<4x2xi32>
    %b = affine.load %w[%c4, %o1] : memref<2x16xi32>
    %zero = arith.constant 0 : i32
    %d = kernel.dot4 %zero, %a, %b : i32
    kernel.yield %d : i32
  }
  func.return
}
"""


def test_dot4_emission_follows_the_cpu() -> None:
    """vpdpbusd's intrinsic only for the lengths the CPU has (on others LLVM aborts), the
    generic widen-multiply-sum otherwise; on a CPU with AVX-512 VNNI the assembly has it,
    and the generic code is pmaddwd on any x86-64 (SSE2 has it)."""
    from xdsl.parser import Parser

    from tessel.passes.kernel.to_loops import KernelToLoops
    from tessel.targets.cpu.jit import CompiledModule
    from tessel.targets.cpu.llvm_modules import emit_module

    ctx = make_context()
    module = Parser(ctx, DOT4_STAGE).parse_module()
    KernelToLoops(vector_bits=512).apply(ctx, module)
    native = emit_module(module, frozenset({16}))
    generic = emit_module(module)
    assert "@llvm.x86.avx512.vpdpbusd.512" in native
    # generic: each lane's bytes as i16 halves (zero- / sign-extended in place by masks and
    # shifts), products summed in neighbouring pairs: LLVM's pmaddwd pattern, no shuffles
    assert "vpdpbusd" not in generic and "ashr <32 x i16>" in generic and "lshr <32 x i16>" in generic
    if 16 in cpu_target.current().dot4_lanes:
        assert "vpdpbusd" in CompiledModule(native, use_cache=False).assembly()
    generic_asm = CompiledModule(generic, use_cache=False).assembly()
    assert "vpmaddwd" in generic_asm or ("vpdpwssd" in generic_asm and 16 in cpu_target.current().dot4_lanes)


def test_tuning_sketch_vectorizes_the_lanes_axis() -> None:
    """tessel-tune's sketch draws its vector loop on the stage's `lanes` axis too (drawn on
    the innermost axis, every candidate of the packed convolution gathered its weights and
    lost to the default), and never makes that axis the register tile's rows."""
    import random

    from xdsl.parser import Parser

    from tessel.dialects import kernel as kd
    from tessel.tune import space

    module = Parser(make_context(), DOT4_STAGE).parse_module()
    op = next(o for o in module.walk() if isinstance(o, kd.ComputeOp))
    assert op.lanes_axis == 1 and space.vector_axis(op) == 1
    assert 1 not in space.knob_space(op)["rows_axis"]
    rng = random.Random(0)
    vectorized = 0
    for _ in range(50):
        schedule = space.loops(op, space.sample(op, rng))
        schedule.validate(op)
        vector = [loop for loop in schedule.loops if loop.kind == "vector"]
        assert all(loop.axis == 1 for loop in vector)
        vectorized += bool(vector)
    assert vectorized > 10


DOT4_FUNCTION = """
func.func @dot4_f(%acc: memref<{n}xi32>, %a: memref<{n}xi32>, %b: memref<{n}xi32>, %out: memref<{n}xi32>) {{
  %c0 = arith.constant 0 : index
  %x = {load} %acc[%c0] : memref<{n}xi32>{vt}
  %y = {load} %a[%c0] : memref<{n}xi32>{vt}
  %z = {load} %b[%c0] : memref<{n}xi32>{vt}
  %d = kernel.dot4 %x, %y, %z : {t}
  {store} %d, %out[%c0] : memref<{n}xi32>{vt}
  func.return
}}
"""


@pytest.mark.parametrize("lanes", [1, 4, 8, 16])
@pytest.mark.parametrize("native", [False, True], ids=["generic", "native"])
def test_dot4_code_matches_its_semantics(lanes: int, native: bool) -> None:
    """The emitted kernel.dot4, JIT-compiled, against its numpy semantics on extreme bytes
    (0, 255 unsigned; -128, 127 signed) and random ones, with a wrapping accumulator."""
    import ctypes

    from xdsl.parser import Parser

    from tessel.dialects.kernel.reference import dot4
    from tessel.targets.cpu.jit import CompiledModule
    from tessel.targets.cpu.llvm_emit import FunctionEmitter

    if native and lanes not in cpu_target.current().dot4_lanes:
        pytest.skip(f"this CPU has no vpdpbusd for {lanes} lanes")
    vector = lanes > 1
    text = DOT4_FUNCTION.format(
        n=lanes,
        load="vector.load" if vector else "memref.load",
        store="vector.store" if vector else "memref.store",
        vt=f", vector<{lanes}xi32>" if vector else "",
        t=f"vector<{lanes}xi32>" if vector else "i32",
    )
    fn = Parser(make_context(), text).parse_module().body.block.first_op
    declares: set[str] = set()
    body = FunctionEmitter(fn, declares, dot4_lanes=frozenset({lanes}) if native else frozenset()).emit()
    ir = "\n".join([*sorted(declares), body, 'attributes #0 = { "min-legal-vector-width"="512" }']) + "\n"
    module = CompiledModule(ir, use_cache=False)
    rng = np.random.default_rng(lanes)
    edges = np.array([0, 255, 0x7F80FF00, 0xFFFFFFFF, 0x01020304], np.uint32).view(np.int32)
    a = np.concatenate([edges, rng.integers(-(2**31), 2**31, 64, dtype=np.int64).astype(np.int32)])
    b = np.concatenate([edges[::-1], rng.integers(-(2**31), 2**31, 64, dtype=np.int64).astype(np.int32)])
    acc = np.concatenate([np.full(5, 2**31 - 100, np.int32), rng.integers(-1000, 1000, 64).astype(np.int32)])
    call = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 4)(module.address("dot4_f"))
    for start in range(0, len(a) - lanes + 1, lanes):
        chunk = [np.ascontiguousarray(v[start : start + lanes]) for v in (acc, a, b)]
        out = np.zeros(lanes, np.int32)
        call(*(v.ctypes.data for v in (*chunk, out)))
        np.testing.assert_array_equal(out, dot4(*chunk))
