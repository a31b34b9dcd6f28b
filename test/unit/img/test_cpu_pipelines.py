"""The CPU image target against the numpy reference: every example (u8 bit-exact, f32 within
1e-4), every border, channels, rate changes, and the arithmetic MLIR leaves undefined."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run as reference
from tessel.frontends.img_examples import NAMES, pipeline_text
from tessel.ir.diagnostics import TesselError
from tessel.ir.source import parse_module, verify
from tessel.pipelines.img import compile_pipeline, entry_function
from tessel.pipelines.img import random_inputs as _random


def check(text: str, seeds: int = 2, **kw) -> None:
    ctx = make_context()
    module = parse_module(ctx, text, "test")
    verify(module)
    fn = entry_function(module)
    original = fn.clone()
    exe = compile_pipeline(ctx, module, **kw)
    try:
        for seed in range(seeds):
            ins = _random(original, seed)
            ref = reference(original, ins)
            outs = exe.run(ins)
            for o, r in zip(outs, ref):
                r = np.asarray(r)
                assert o.shape == r.shape and o.dtype == r.dtype
                if o.dtype.kind == "f":
                    np.testing.assert_allclose(o, r, atol=1e-4, rtol=0)
                else:
                    np.testing.assert_array_equal(o, r)
    finally:
        exe.close()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("t", ["u8", "f32"])
@pytest.mark.parametrize("size", [(36, 148), (12, 20)])  # vectors + edges; narrower than a vector
def test_examples_match_reference(name: str, t: str, size: tuple[int, int]) -> None:
    check(pipeline_text(name, t, *size))


@pytest.mark.parametrize("threads", [1, 3])
def test_threads_and_strips(threads: int) -> None:
    check(pipeline_text("unsharp", "u8", 50, 90), threads=threads)


def _stencil(border: str, kh: int, kw: int, c: int = 1, el: str = "ui8", h: int = 17, w: int = 75) -> str:
    s = {"ui8": "i8", "i16": "i16", "f32": "f32"}[el]
    n = kh * kw
    args = ", ".join(f"%p{i}: {s}" for i in range(n))
    add = "arith.addf" if el == "f32" else "arith.addi"
    body = [f"    %s0 = {add} %p0, %p{n - 1} : {s}"]
    body += [f"    %s{i} = {add} %s{i - 1}, %p{i} : {s}" for i in range(1, n - 1)]
    last = f"%s{max(n - 2, 0)}" if n > 1 else "%p0"
    ft = f"!img.frame<{h}x{w}x{c}x{el}>"
    return f"""func.func @f(%x: {ft}) -> {ft} {{
  %y = img.stencil %x window [{kh}, {kw}] border {border} : ({ft}) -> {ft} {{
  ^bb0({args}):
{chr(10).join(body) if n > 1 else ""}
    img.yield {last} : {s}
  }}
  func.return %y : {ft}
}}"""


@pytest.mark.parametrize("border", ["clamp", "zero", "mirror"])
@pytest.mark.parametrize("window", [(3, 3), (5, 1), (1, 5), (2, 4)])
def test_borders(border: str, window: tuple[int, int]) -> None:
    check(_stencil(border, *window))


@pytest.mark.parametrize("el", ["ui8", "i16", "f32"])
def test_channels_and_types(el: str) -> None:
    check(_stencil("mirror", 3, 3, c=3, el=el))


def test_stencil_of_stencil_inline_composes_borders() -> None:
    """A 3x3 clamp stencil read inline by a 3x3 mirror stencil: nested border maps."""
    ft = "!img.frame<20x70x1xui8>"
    win = ", ".join(f"%p{i}: i8" for i in range(9))

    def st(name: str, src: str, border: str, attrs: str = "") -> str:
        return f"""  {name} = img.stencil {src} window [3, 3] border {border} {attrs}: ({ft}) -> {ft} {{
  ^bb0({win}):
    %a = arith.addi %p0, %p8 : i8
    %b = arith.subi %a, %p5 : i8
    img.yield %b : i8
  }}"""

    for attrs in ["{img.compute = #img<compute inline>} ", "{img.compute = #img<compute line_buffer>} "]:
        text = f"func.func @f(%x: {ft}) -> {ft} {{\n{st('%s', '%x', 'clamp', attrs)}\n{st('%y', '%s', 'mirror')}\n  func.return %y : {ft}\n}}"
        check(text, fuse=False)


def test_downsample_nearest_average_and_crop() -> None:
    ft, ht = "!img.frame<24x48x3xi16>", "!img.frame<12x16x3xi16>"
    text = f"""func.func @f(%x: {ft}) -> ({ht}, {ht}) {{
  %a = img.downsample %x factor [2, 3] mode average : {ft} -> {ht}
  %c = img.crop %x roi [5, 7, 24, 32] : {ft} -> !img.frame<24x32x3xi16>
  %n = img.downsample %c factor [2, 2] mode nearest : !img.frame<24x32x3xi16> -> {ht}
  func.return %a, %n : {ht}, {ht}
}}""".replace("roi [5, 7, 24, 32]", "roi [0, 7, 24, 32]")
    check(text)


def test_result_also_read_by_a_stencil() -> None:
    ft = "!img.frame<30x40x1xf32>"
    text = f"""func.func @f(%x: {ft}) -> ({ft}, {ft}) {{
  %m = img.map %x : ({ft}) -> {ft} {{
  ^bb0(%a: f32):
    %b = arith.mulf %a, %a : f32
    img.yield %b : f32
  }}
  %s = img.stencil %m window [3, 1] border clamp : ({ft}) -> {ft} {{
  ^bb0(%p0: f32, %p1: f32, %p2: f32):
    %a = arith.addf %p0, %p2 : f32
    img.yield %a : f32
  }}
  func.return %m, %s : {ft}, {ft}
}}"""
    check(text, seeds=1, threads=3)


def test_undefined_arithmetic_follows_the_reference() -> None:
    """Division by zero, over-wide shifts, saturating and NaN conversions."""
    ft, gt = "!img.frame<9x70x1xui8>", "!img.frame<9x70x1xf32>"
    text = f"""func.func @f(%x: {ft}, %y: {ft}, %z: {gt}) -> ({ft}, {ft}, {ft}, {ft}) {{
  %d = img.map %x, %y : ({ft}, {ft}) -> {ft} {{
  ^bb0(%a: i8, %b: i8):
    %q = arith.divui %a, %b : i8
    %r = arith.remsi %a, %b : i8
    %s = arith.divsi %a, %b : i8
    %t = arith.addi %q, %r : i8
    %u = arith.xori %t, %s : i8
    img.yield %u : i8
  }}
  %s = img.map %x, %y : ({ft}, {ft}) -> {ft} {{
  ^bb0(%a: i8, %b: i8):
    %l = arith.shli %a, %b : i8
    %r = arith.shrsi %a, %b : i8
    %u = arith.shrui %a, %b : i8
    %t = arith.addi %l, %r : i8
    %v = arith.xori %t, %u : i8
    img.yield %v : i8
  }}
  %c = img.map %z : ({gt}) -> {ft} {{
  ^bb0(%a: f32):
    %k = arith.constant 600.0 : f32
    %o = arith.constant 300.0 : f32
    %m = arith.mulf %a, %k : f32
    %n = arith.subf %m, %o : f32
    %zero = arith.constant 0.0 : f32
    %nan = arith.divf %zero, %zero : f32
    %lt = arith.cmpf olt, %a, %zero : f32
    %w = arith.select %lt, %nan, %n : f32
    %i = arith.fptosi %w : f32 to i8
    img.yield %i : i8
  }}
  %u = img.map %z : ({gt}) -> {ft} {{
  ^bb0(%a: f32):
    %k = arith.constant 600.0 : f32
    %o = arith.constant 300.0 : f32
    %m = arith.mulf %a, %k : f32
    %n = arith.subf %m, %o : f32
    %i = arith.fptoui %n : f32 to i8
    img.yield %i : i8
  }}
  func.return %d, %s, %c, %u : {ft}, {ft}, {ft}, {ft}
}}"""
    check(text, seeds=2)


def test_unsupported_op_is_one_clear_error() -> None:
    ctx = make_context()
    module = parse_module(
        ctx,
        """func.func @f(%x: !img.frame<8x8x1xui8>) -> !img.frame<8x8x1xi32> {
  %s = img.scan %x : !img.frame<8x8x1xui8> -> !img.frame<8x8x1xi32>
  func.return %s : !img.frame<8x8x1xi32>
}""",
        "scan.mlir",
    )
    with pytest.raises(
        TesselError, match=r"scan.mlir:2:3: error: img.scan is not a row-streamed stage .* whole-frame kernel"
    ):
        compile_pipeline(ctx, module)


def test_results_of_different_heights_are_refused() -> None:
    ctx = make_context()
    module = parse_module(
        ctx,
        """func.func @f(%x: !img.frame<8x8x1xui8>) -> (!img.frame<8x8x1xui8>, !img.frame<4x4x1xui8>) {
  %d = img.downsample %x factor [2, 2] mode nearest : !img.frame<8x8x1xui8> -> !img.frame<4x4x1xui8>
  func.return %x, %d : !img.frame<8x8x1xui8>, !img.frame<4x4x1xui8>
}""",
        "h.mlir",
    )
    with pytest.raises(TesselError, match="one height"):
        compile_pipeline(ctx, module)


def test_sign_extended_i1_is_all_ones() -> None:
    """arith.extsi of a true i1 is -1 (all bits), in the reference and in the generated code."""
    text = """func.func @f(%x: !img.frame<20x70x1xui8>) -> !img.frame<20x70x1xui8> {
  %y = img.map %x : (!img.frame<20x70x1xui8>) -> !img.frame<20x70x1xui8> {
  ^bb0(%v: i8):
    %c = arith.constant 100 : i8
    %b = arith.cmpi ugt, %v, %c : i8
    %w = arith.extsi %b : i1 to i8
    img.yield %w : i8
  }
  func.return %y : !img.frame<20x70x1xui8>
}
"""
    module = parse_module(make_context(), text, "t")
    x = np.arange(20 * 70, dtype=np.int64).reshape(20, 70, 1).astype(np.uint8)
    assert set(np.unique(reference(entry_function(module), [x])[0]).tolist()) == {0, 255}
    check(text)


@pytest.mark.parametrize("h,w", [(2, 2), (3, 2), (1, 5), (4, 3)])
def test_mirror_windows_wider_than_the_frame_reflect_again(h: int, w: int) -> None:
    """A 5x5 (or 7x7) mirror window on a frame of 1-4 pixels a side reaches past the far
    edge: numpy's reflect padding is periodic (period 2 * (n - 1)), and so is the code.
    Found by the camera-pipeline fuzzer (a 5x5 window on a 2x2 frame)."""
    for k in (5, 7):
        args = ", ".join(f"%p{i}: i8" for i in range(k * k))
        t = f"!img.frame<{h}x{w}x1xui8>"
        check(
            f"""func.func @f(%x: {t}) -> {t} {{
  %y = img.stencil %x window [{k}, {k}] border mirror : ({t}) -> {t} {{
  ^bb0({args}):
    %a = arith.addi %p0, %p{k - 1} : i8
    %b = arith.addi %a, %p{k * k - 1} : i8
    %c = arith.xori %b, %p{k * (k - 1)} : i8
    img.yield %c : i8
  }}
  func.return %y : {t}
}}""",
            seeds=2,
        )
