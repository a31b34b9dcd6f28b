"""Minimized regression tests for the bugs the fuzzers found. (The bugs the bad-input
corpus found are its own regression tests: test/bad-inputs/, one file per case.)"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from tessel.dialects.context import make_context
from tessel.dialects.hev.params import DEFAULT
from tessel.dialects.hev.reference import run_kernel
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, verify
from tessel.passes import all_passes
from tessel.targets.seal.execute import execute

T = 65537


@pytest.mark.parametrize(
    "body",
    [
        "%c1 = hev.sub %c0, %c0 : !hev.ct<8>",  # found by test_fuzz_he: SEAL threw "result ciphertext is transparent"
        "%n = hev.negate %c0 : !hev.ct<8>\n  %c1 = hev.add %c0, %n : !hev.ct<8>",
        "%z = hev.encode %b : !hev.vec<8> -> !hev.pt<8>\n  %c1 = hev.multiply_plain %c0, %z : !hev.ct<8>, !hev.pt<8>",
    ],
    ids=["x-x", "x+(-x)", "x*zero-plaintext"],
)
def test_a_program_whose_result_is_exactly_zero_runs_on_seal(body: str) -> None:
    text = f"""
    func.func @p(%a: !hev.vec<8>, %b: !hev.vec<8> {{hev.public}}) -> !hev.vec<8> {{
      %c0 = hev.encrypt %a : !hev.vec<8> -> !hev.ct<8>
      {body}
      %out = hev.decrypt %c1 : !hev.ct<8> -> !hev.vec<8>
      func.return %out : !hev.vec<8>
    }}
    """
    module = parse_module(make_context(), text)
    (fn,) = list(module.ops)
    inputs = [np.arange(8) * 7 + 1, np.zeros(8, np.int64)]
    result = execute(fn, inputs, DEFAULT)
    assert list(np.asarray(result.output) % T) == [0] * 8 == list(run_kernel(module, fn, inputs, T) % T)
    assert result.noise_budget > 0


def test_a_cycle_in_a_graph_is_refused_by_the_verifier() -> None:
    """Found by the corpus (opt/tg-cyclic.mlir): xDSL does not check dominance, so
    `%a = tg.add %x, %b` before `%b = tg.relu %a` reached tg-fuse and failed there."""
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %a = tg.add %x, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      %b = tg.relu %a : tensor<2xf32>
      func.return %b : tensor<2xf32>
    }
    """
    with pytest.raises(TesselError, match=r"'tg.add' op uses %b before it is defined"):
        verify(parse_module(make_context(), text))


def test_float_pass_options_take_integers() -> None:
    """`he-synthesize{budget=20}` was refused: 'Incompatible types: given (20,), expected float'."""
    pipeline = PassPipeline.parse_spec(all_passes(), "he-synthesize{budget=20},he-mod-switch{margin=2}")
    assert pipeline.passes[0].budget == 20 and pipeline.passes[1].margin == 2


def test_a_scalar_stage_schedule_survives_text() -> None:
    """Found by test_fuzz_schedules (long profile): a 0-d stage (relu of a reduce_sum to a
    scalar) was written as `sched.axes []` and read back as 'has no sched.axes', so its
    schedule (a tuning record) could not be replayed."""
    from tessel.ir.source import print_module
    from tessel.ir.weights import WeightStore, with_weights
    from tessel.passes.kernel.loops.apply_sched import schedule_from_stage, stage_from_schedule
    from tessel.passes.sched.default import stage_names
    from tessel.passes.tg.to_kernel import TgToKernel
    from tessel.pipelines.tensor import graph_passes
    from tessel.tune import space

    text = """
    func.func @main(%in0: tensor<1xf32>) -> (tensor<f32>, tensor<f32>) {
      %0 = tg.reduce_sum %in0 {axes = array<i64: 0>, keepdims = false} : tensor<1xf32> -> tensor<f32>
      %1 = tg.relu %0 : tensor<f32>
      func.return %0, %1 : tensor<f32>, tensor<f32>
    }
    """
    ctx = make_context()
    module = parse_module(ctx, text)
    PassPipeline(with_weights((*graph_passes(), TgToKernel()), WeightStore({}))).apply(ctx, module)
    stages = [(s, c) for fn in module.ops if "kernel.kernel" in fn.attributes for s, c in stage_names(fn)]
    assert any(not c.axis_names for _, c in stages), "the scalar stage is there"
    for stage, compute in stages:
        schedule = space.loops(compute, space.DEFAULT)
        written = parse_module(ctx, print_module(stage_from_schedule(compute, stage, schedule))).body.block.first_op
        replayed = schedule_from_stage(compute, written)
        assert [(l.axis, l.extent, l.kind) for l in replayed.loops] == [
            (l.axis, l.extent, l.kind) for l in schedule.loops
        ]


def test_a_mirror_window_wider_than_its_frame_reflects_periodically() -> None:
    """Found by test_fuzz_img: a 5x5 mirror stencil on a 2x2 frame (after a downsample)
    reflected once and clamped; numpy's reflect padding (the reference) is periodic."""
    from tessel.dialects.img.reference import run as reference
    from tessel.pipelines.img import compile_program, entry_function

    args = ", ".join(f"%p{i}: i8" for i in range(25))
    text = f"""func.func @p() {{
  %v1 = img.source {{fps = 10 : f64, camera = "cam"}} : !img.stream<4x4x1xui8>
  %v3 = img.downsample %v1 factor [2, 2] mode nearest : !img.stream<4x4x1xui8> -> !img.stream<2x2x1xui8>
  %v4 = img.stencil %v3 window [5, 5] border mirror : (!img.stream<2x2x1xui8>) -> !img.stream<2x2x1xui8> {{
  ^bb0({args}):
    %s1 = arith.addi %p0, %p4 : i8
    img.yield %s1 : i8
  }}
  img.sink %v4 : !img.stream<2x2x1xui8>
  func.return
}}"""
    ctx = make_context()
    module = parse_module(ctx, text, "fuzz.mlir")
    fn = entry_function(module)
    original = fn.clone()
    exe = compile_program(ctx, module)
    frames = [np.random.default_rng(s).integers(0, 256, (4, 4, 1)).astype(np.uint8) for s in range(3)]
    sinks: list = []
    reference(original, [], {"cam": frames}, sinks)
    got = exe.run([], {"cam": frames})
    exe.close()
    assert len(got.sinks[0]) == len(sinks[0]) == 3
    for a, b in zip(got.sinks[0], sinks[0]):
        np.testing.assert_array_equal(a, b)


def _three_targets(text: str, inputs: list[np.ndarray]) -> tuple[list, list, list]:
    """The reference, the kernel IR and the CPU, as the element-wise fuzzer runs them."""
    from test_fuzz_elementwise import Graph, run_cpu, run_kernels

    from tessel.targets.reference.interpreter import run

    graph = Graph(parse_module(make_context(), text), inputs)
    return run(graph.module.clone(), inputs, {}), run_kernels(graph), run_cpu(graph)


def test_nan_and_infinities_cast_to_ui32_as_tg_cast_says() -> None:
    """Found by the long profile of test_fuzz_elementwise: NaN and -inf cast f16 -> ui32 gave
    2147483648 on the reference target (numpy's AVX2 loop) and 0 compiled (through i64, as
    tg.cast's rule says; numpy's own scalar loop agrees); the reference now follows the rule."""
    text = """
    func.func @main(%x: tensor<37xf16>) -> tensor<37xui32> {
      %y = tg.cast %x : tensor<37xf16> -> tensor<37xui32>
      func.return %y : tensor<37xui32>
    }
    """
    x = np.array([np.nan, -np.inf, np.inf, -1.5, 65504.0, 3.75, -0.0] * 5 + [2.0, 1.0], np.float16)
    want, kernels, cpu = _three_targets(text, [x])
    assert list(want[0][:7]) == [0, 0, 0, 4294967295, 65504, 3, 0]
    np.testing.assert_array_equal(kernels[0], want[0])
    np.testing.assert_array_equal(cpu[0], want[0])


def test_sigmoid_of_a_large_negative_value_is_subnormal_not_zero() -> None:
    """Found by the long profile of test_fuzz_elementwise: sigmoid(-91) in bfloat16 was 0 on
    the CPU (1 / (1 + exp(91)), exp overflowing) where it is 2.76e-40, 3 ulps away."""
    text = """
    func.func @main(%x: tensor<8xbf16>) -> tensor<8xbf16> {
      %y = tg.sigmoid %x : tensor<8xbf16>
      func.return %y : tensor<8xbf16>
    }
    """
    import ml_dtypes

    x = np.array([-91.0, -110.5, -50.75, -88.0, 0.0, 3.0, -3.0, np.nan], ml_dtypes.bfloat16)
    want, _, cpu = _three_targets(text, [x])
    got, exp = cpu[0].astype(np.float64), want[0].astype(np.float64)
    assert exp[0] > 0 and got[0] > 0  # 2.76e-40: a bfloat16 subnormal
    ulp = np.abs(np.spacing(want[0][:7])).astype(np.float64)
    assert (np.abs(got[:7] - exp[:7]) <= np.maximum(ulp, 9.2e-41)).all(), (got, exp)  # the fuzzer's 1 ulp
    assert np.isnan(got[7])


def test_pytorch_half_pixel_resize_to_one_element_reads_the_first_row() -> None:
    """Found by test_fuzz_onnx against onnxruntime: Resize (linear, pytorch_half_pixel) of 3
    rows at scale 0.5 has one output row, and "length_resized > 1 ? ... : 0" reads row 0; the
    importer followed onnx's reference, which tests the unrounded 3 * 0.5 == 1 and read the
    middle of rows 0 and 1."""
    import onnx
    from onnx import TensorProto, helper

    from tessel.frontends.onnx import import_model
    from tessel.pipelines.tensor import compile_for_cpu
    from tessel.targets.reference.interpreter import run

    node = helper.make_node(
        "Resize", ["x", "", "scales"], ["y"], mode="linear", coordinate_transformation_mode="pytorch_half_pixel"
    )
    graph = helper.make_graph(
        [node],
        "resize",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1, 4])],
        [helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, 0.5, 2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    x = np.array([[[[0.64, 0.10], [-0.53, 0.36], [1.3, 0.94]]]], np.float32)
    # row 0 widened to 4 (half-pixel along the width, scale 2): 0.64, 0.505, 0.235, 0.10
    want = np.array([[[[0.64, 0.64 * 0.75 + 0.10 * 0.25, 0.64 * 0.25 + 0.10 * 0.75, 0.10]]]], np.float32)
    result = import_model(model, source="resize.onnx")
    np.testing.assert_allclose(run(result.module.clone(), [x], result.weights)[0], want, rtol=1e-6)
    executable, _ = compile_for_cpu(result.module, result.weights, threads=1)
    try:
        np.testing.assert_allclose(executable.run([x])[0], want, rtol=1e-6)
    finally:
        executable.close()
