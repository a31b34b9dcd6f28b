"""Frame programs on the CPU target against the numpy reference: every whole-frame kernel
(reduce, scan, dense, remap, upsample) and the channel ops over every element type, gates
that drop frames, steps that run once, pipelines split by height, and both camera case
studies (face authentication, the 360 rig) value for value."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.bench.camera import load_pipelines, pipelines_module
from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run as reference
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, verify
from tessel.pipelines.img import compile_program, entry_function, needs_program, random_inputs


def _program(text: str, **kw):  # noqa: ANN003, ANN202
    ctx = make_context()
    module = parse_module(ctx, text, "p.mlir")
    verify(module)
    fn = entry_function(module)
    return fn.clone(), compile_program(ctx, module, **kw)


def _same(got, want) -> None:  # noqa: ANN001
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, atol=1e-4, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


def check_frames(text: str, seeds: int = 2, **kw) -> None:  # noqa: ANN003
    """A function of frames: the program's results against the reference's, random inputs."""
    fn, exe = _program(text, **kw)
    try:
        for seed in range(seeds):
            ins = random_inputs(fn, seed)
            _same(exe.run(ins).results, reference(fn, ins))
    finally:
        exe.close()


def _unary(op: str, x: str, y: str, attrs: str = "") -> str:
    return f"""func.func @f(%x: {x}) -> {y} {{
  %y = {op} %x {attrs} : {x} -> {y}
  func.return %y : {y}
}}"""


ELEMENTS = ["ui8", "i8", "ui16", "i16", "i32", "f32"]


@pytest.mark.parametrize("e", ELEMENTS)
@pytest.mark.parametrize("kind", ["sum", "min", "max"])
def test_reduce(e: str, kind: str) -> None:
    out = e if kind != "sum" else ("f32" if e == "f32" else "i32")
    check_frames(_unary("img.reduce", f"!img.frame<37x53x3x{e}>", f"!img.frame<1x1x3x{out}>", f"kind {kind}"))


def test_integer_sums_wrap_in_int32() -> None:
    """A 300x300 frame of i32 near the top of the range: its sum wraps, as the reference's."""
    fn, exe = _program(_unary("img.reduce", "!img.frame<300x300x1xi32>", "!img.frame<1x1x1xi32>", " kind sum"))
    x = np.full((300, 300, 1), 2**31 - 7, np.int32)
    _same(exe.run([x]).results, reference(fn, [x]))
    exe.close()


def test_float_min_max_propagate_nan() -> None:
    fn, exe = _program(_unary("img.reduce", "!img.frame<9x9x2xf32>", "!img.frame<1x1x2xf32>", " kind max"))
    x = np.random.default_rng(0).random((9, 9, 2), dtype=np.float32)
    x[4, 4, 1] = np.nan
    got = exe.run([x]).results[0]
    assert np.isnan(got[0, 0, 1]) and got[0, 0, 0] == x[..., 0].max()
    exe.close()


@pytest.mark.parametrize("e", ELEMENTS)
def test_scan(e: str) -> None:
    out = "f32" if e == "f32" else "i32"
    check_frames(_unary("img.scan", f"!img.frame<41x67x2x{e}>", f"!img.frame<41x67x2x{out}>"))


@pytest.mark.parametrize("e", ["ui8", "i8", "i16", "i32"])
def test_dense(e: str) -> None:
    check_frames(
        f"""func.func @f(%x: !img.frame<6x7x2x{e}>, %w: !img.frame<84x37x1xi8>) -> !img.frame<1x1x37xi32> {{
  %y = img.dense %x, %w : !img.frame<6x7x2x{e}>, !img.frame<84x37x1xi8> -> !img.frame<1x1x37xi32>
  func.return %y : !img.frame<1x1x37xi32>
}}""",
        threads=3,
    )


@pytest.mark.parametrize("e,lut", [("ui8", "i16"), ("f32", "i32"), ("i16", "i16")])
@pytest.mark.parametrize("c", [1, 3])
def test_remap_clamps_the_table_into_the_frame(e: str, lut: str, c: int) -> None:
    """Random tables (whole i16 range, or whole i32 range) read far outside the frame: clamped."""
    check_frames(
        f"""func.func @f(%x: !img.frame<23x31x{c}x{e}>, %t: !img.frame<17x19x2x{lut}>) -> !img.frame<17x19x{c}x{e}> {{
  %y = img.remap %x, %t max_displacement 64 : !img.frame<23x31x{c}x{e}>, !img.frame<17x19x2x{lut}> -> !img.frame<17x19x{c}x{e}>
  func.return %y : !img.frame<17x19x{c}x{e}>
}}""",
        seeds=3,
    )


def test_remap_in_range_gathers() -> None:
    fn, exe = (
        _program("""func.func @f(%x: !img.frame<20x30x1xui8>, %t: !img.frame<20x30x2xi16>) -> !img.frame<20x30x1xui8> {
  %y = img.remap %x, %t max_displacement 3 : !img.frame<20x30x1xui8>, !img.frame<20x30x2xi16> -> !img.frame<20x30x1xui8>
  func.return %y : !img.frame<20x30x1xui8>
}""")
    )
    rng = np.random.default_rng(1)
    x = rng.integers(0, 256, (20, 30, 1)).astype(np.uint8)
    ys, xs = np.mgrid[0:20, 0:30]
    t = np.stack([ys + rng.integers(-3, 4, ys.shape), xs + rng.integers(-3, 4, xs.shape)], -1).astype(np.int16)
    _same(exe.run([x, t]).results, reference(fn, [x, t]))
    exe.close()


@pytest.mark.parametrize("e", ["ui8", "i16", "f32"])
def test_upsample(e: str) -> None:
    check_frames(
        _unary("img.upsample", f"!img.frame<7x9x3x{e}>", f"!img.frame<14x27x3x{e}>", "factor [2, 3]"), threads=3
    )


def test_extract_and_merge_fuse_with_stencils() -> None:
    """Planes out of an RGB frame, a stencil on one, merged back: one row pipeline."""
    t3, t1 = "!img.frame<33x45x3xui8>", "!img.frame<33x45x1xui8>"
    text = f"""func.func @f(%x: {t3}) -> {t3} {{
  %r = img.extract %x channel 0 : {t3} -> {t1}
  %g = img.extract %x channel 1 : {t3} -> {t1}
  %b = img.extract %x channel 2 : {t3} -> {t1}
  %s = img.stencil %g window [3, 3] border mirror : ({t1}) -> {t1} {{
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %m = arith.maxui %p1, %p7 : i8
    img.yield %m : i8
  }}
  %y = img.merge %b, %s, %r : ({t1}, {t1}, {t1}) -> {t3}
  func.return %y : {t3}
}}"""
    fn, exe = _program(text)
    assert [s.kind for s in exe.program.steps] == ["pipeline"]
    exe.close()
    check_frames(text)


def test_results_of_two_heights_become_two_pipelines() -> None:
    t, d = "!img.frame<16x20x1xui8>", "!img.frame<8x10x1xui8>"
    text = f"""func.func @f(%x: {t}) -> ({t}, {d}) {{
  %s = img.stencil %x window [3, 3] border clamp : ({t}) -> {t} {{
  ^bb0(%p0: i8, %p1: i8, %p2: i8, %p3: i8, %p4: i8, %p5: i8, %p6: i8, %p7: i8, %p8: i8):
    %m = arith.maxui %p0, %p8 : i8
    img.yield %m : i8
  }}
  %d = img.downsample %s factor [2, 2] mode average : {t} -> {d}
  func.return %s, %d : {t}, {d}
}}"""
    fn, exe = _program(text)
    assert sorted(s.name.rsplit("_", 1)[1] for s in exe.program.steps) == ["16", "8"]
    exe.close()
    check_frames(text)


# ---------------------------------------------------------------------- streams and gates

GATED = """func.func @g(%bg: !img.frame<8x8x1xui8>) {
  %k = img.map %bg : (!img.frame<8x8x1xui8>) -> !img.frame<8x8x1xui8> {
  ^bb0(%v: i8):
    %one = arith.constant 1 : i8
    %r = arith.addi %v, %one : i8
    img.yield %r : i8
  }
  %s = img.source {fps = 10 : f64, camera = "cam"} : !img.stream<8x8x1xui8>
  %d = img.map %s, %k : (!img.stream<8x8x1xui8>, !img.frame<8x8x1xui8>) -> !img.stream<8x8x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %r = arith.subi %a, %b : i8
    img.yield %r : i8
  }
  %top = img.reduce %d kind max : !img.stream<8x8x1xui8> -> !img.stream<1x1x1xui8>
  %p = img.map %top : (!img.stream<1x1x1xui8>) -> !img.stream<1x1x1xui8> {
  ^bb0(%v: i8):
    %t = arith.constant 100 : i8
    %c = arith.cmpi ugt, %v, %t : i8
    %r = arith.extui %c : i1 to i8
    img.yield %r : i8
  }
  %kept = img.gate %s, %p {pass_rate = 0.5 : f64} : !img.stream<8x8x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<8x8x1xui8>
  %top2 = img.reduce %kept kind min : !img.stream<8x8x1xui8> -> !img.stream<1x1x1xui8>
  %kept2 = img.gate %kept, %top2 {pass_rate = 0.5 : f64} : !img.stream<8x8x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<8x8x1xui8>
  %up = img.upsample %kept2 factor [2, 2] : !img.stream<8x8x1xui8> -> !img.stream<16x16x1xui8>
  %out = img.encode %up {ratio = 0.1 : f64, ops_per_pixel = 10.0 : f64} : !img.stream<16x16x1xui8> -> !img.stream<16x16x1xui8>
  img.sink %out : !img.stream<16x16x1xui8>
  img.sink %top : !img.stream<1x1x1xui8>
  func.return
}"""


def test_gates_drop_frames_like_the_reference() -> None:
    """Frames below the first gate's threshold stop there; those with a zero pixel stop at
    the second; the frame-only map runs once; what reaches each sink equals the reference."""
    fn, exe = _program(GATED)
    assert [s.name for s in exe.program.steps if not s.per_frame] == [
        s.name for s in exe.program.steps if s.kind == "pipeline"
    ][:1]
    bg = np.full((8, 8, 1), 9, np.uint8)
    dim = np.full((8, 8, 1), 50, np.uint8)
    bright = np.full((8, 8, 1), 200, np.uint8)
    holed = bright.copy()
    holed[3, 3] = 0
    frames = [dim, bright, holed, dim, bright]
    got = exe.run([bg], {"cam": frames})
    sinks: list = []
    reference(fn, [bg], {"cam": frames}, sinks)
    _same(got.sinks, sinks)
    assert got.gates == {"%kept": (3, 5), "%kept2": (2, 3)}
    assert len(got.sinks[0]) == 2 and len(got.sinks[1]) == 5
    exe.close()


def test_a_source_without_frames_is_one_error() -> None:
    fn, exe = _program(GATED)
    with pytest.raises(TesselError, match="img.source 'cam' has no frames"):
        exe.run([np.zeros((8, 8, 1), np.uint8)], {})
    with pytest.raises(TesselError, match=r"frame #0 of source 'cam' is 8x9x1, the pipeline takes 8x8x1"):
        exe.run([np.zeros((8, 8, 1), np.uint8)], {"cam": [np.zeros((8, 9, 1), np.uint8)]})
    exe.close()


def _face_frames() -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(0)
    background = np.full((36, 44, 1), 40, np.uint8)
    still = np.full((144, 176, 1), 40, np.uint8)
    moving = still.copy()
    moving[40:110, 60:100] = 200  # motion, and a strong vertical edge
    flat_move = np.full((144, 176, 1), 50, np.uint8)  # motion without an edge: the face gate drops it
    frames = [still, moving, flat_move, still, moving, flat_move, moving]
    return [background], frames + [rng.integers(0, 256, (144, 176, 1)).astype(np.uint8)]


@pytest.mark.parametrize("without", [(), ("motion_gate",), ("face_gate",), ("roi",)])
def test_face_authentication_on_the_cpu(without: tuple[str, ...]) -> None:
    build = load_pipelines()
    fn, exe = _program(build("face_auth", without))
    (bg,), frames = _face_frames()
    rng = np.random.default_rng(1)
    n = 24 * 24 if "roi" not in without else 144 * 176
    w1 = rng.integers(-128, 128, (n, 64, 1)).astype(np.int8)
    w2 = rng.integers(-128, 128, (64, 2, 1)).astype(np.int8)
    got = exe.run([bg, w1, w2], {"wispcam": frames})
    sinks: list = []
    reference(fn, [bg, w1, w2], {"wispcam": frames}, sinks)
    _same(got.sinks, sinks)
    if not without:
        assert got.gates == {"%motion": (6, 8), "%faces": (4, 6)}
    exe.close()


def test_the_rig_on_the_cpu() -> None:
    """The rig's data path at a small size: demosaic + white balance fused, the LUT warp as a
    kernel, luma + flow + stitch + downsample fused; every frame bit-exact."""
    text = pipelines_module().rig360(size=(72, 128, 64))
    fn, exe = _program(text)
    assert [s.kind for s in exe.program.steps] == ["pipeline", "kernel", "pipeline"]
    rng = np.random.default_rng(2)
    ys, xs = np.mgrid[0:64, 0:64]
    lut = np.stack([ys + rng.integers(-9, 9, ys.shape), xs + 30 + rng.integers(-9, 9, xs.shape)], -1).astype(np.int16)
    frames = [rng.integers(0, 256, (72, 128, 1)).astype(np.uint8) for _ in range(3)]
    got = exe.run([lut], {"rig": frames})
    sinks: list = []
    reference(fn, [lut], {"rig": frames}, sinks)
    _same(got.sinks, sinks)
    exe.close()


def test_only_row_pipelines_over_frames_skip_the_program() -> None:
    ctx = make_context()
    plain = entry_function(parse_module(ctx, _unary("img.downsample", "!img.frame<8x8x1xui8>", "!img.frame<4x4x1xui8>",
                                                    'factor [2, 2] mode nearest'), "a"))  # fmt: skip
    scan = entry_function(parse_module(ctx, _unary("img.scan", "!img.frame<8x8x1xui8>", "!img.frame<8x8x1xi32>"), "b"))
    assert not needs_program(plain) and needs_program(scan)
