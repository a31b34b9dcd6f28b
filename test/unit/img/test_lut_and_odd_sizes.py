"""Pipelines of our own, not from examples/: lookup tables (u8/u16 index, any element type,
tables shorter than the index range), downsamples of sizes the factor does not divide (floor,
ceil with every border), another stencil (a 5x3 erosion under a mirror border), and the
default pipeline's hoisting, all bit-exact against the numpy reference on the CPU target."""

from __future__ import annotations

import numpy as np
import pytest

from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run as reference
from tessel.ir.source import parse_module, print_module, verify
from tessel.pipelines.img import compile_pipeline, compile_program, entry_function, random_inputs

SCALAR = {"ui8": "i8", "ui16": "i16", "i8": "i8", "i16": "i16", "i32": "i32", "f32": "f32"}


def _same(got: list, want: list) -> None:
    for o, r in zip(got, want):
        r = np.asarray(r)
        assert o.shape == r.shape and o.dtype == r.dtype
        if o.dtype.kind == "f":
            np.testing.assert_allclose(o, r, atol=1e-4, rtol=0)
        else:
            np.testing.assert_array_equal(o, r)


def check(text: str, seed: int = 0, **kw: object) -> list[str]:
    """Compile text for the CPU, run it on random frames, compare with the reference; what
    hoisting moved."""
    ctx = make_context()
    module = parse_module(ctx, text, "t.mlir")
    verify(module)
    fn = entry_function(module)
    ins = random_inputs(fn, seed)
    want = reference(fn.clone(), ins)
    hoisted: list[str] = []
    exe = compile_pipeline(ctx, module, hoisted=hoisted, **kw)  # type: ignore[arg-type]
    try:
        _same(exe.run(ins), want)
    finally:
        exe.close()
    return hoisted


def _table(index: str, element: str, entries: int, seed: int = 1) -> str:
    rng = np.random.default_rng(seed)
    if element == "f32":
        values = [f"{v:.6e}" for v in rng.normal(0, 100, entries).astype(np.float32)]
    else:
        info = np.iinfo(
            np.dtype({"ui8": "uint8", "ui16": "uint16", "i8": "int8", "i16": "int16", "i32": "int32"}[element])
        )
        values = [str(int(v)) for v in rng.integers(int(info.min), int(info.max) + 1, entries)]
    return f"dense<[{', '.join(values)}]> : tensor<{entries}x{element}>"


@pytest.mark.parametrize("index", ["ui8", "ui16"])
@pytest.mark.parametrize("element", ["ui8", "i8", "ui16", "i16", "i32", "f32"])
def test_lut_every_type(index: str, element: str) -> None:
    # ui16 indices beyond a 1024-entry table read its last entry (a 10-bit raw curve)
    entries = 256 if index == "ui8" else 1024
    ft, ot = f"!img.frame<37x53x2x{index}>", f"!img.frame<37x53x2x{element}>"
    check(f"""func.func @f(%x: {ft}) -> {ot} {{
  %l = img.lut %x table({_table(index, element, entries)}) : {ft} -> {ot}
  func.return %l : {ot}
}}""")


def test_lut_fuses_into_maps_and_stencils() -> None:
    """A table read by a map is re-evaluated there (inline); under a 3x3 stencil it is
    line-buffered (nine gathers per pixel cost more than a row of storage)."""
    ft, wt = "!img.frame<29x70x1xui8>", "!img.frame<29x70x1xi16>"
    text = f"""func.func @f(%x: {ft}) -> ({wt}, {wt}) {{
  %l = img.lut %x table({_table("ui8", "i16", 200)}) : {ft} -> {wt}
  %m = img.map %l : ({wt}) -> {wt} {{
  ^bb0(%a: i16):
    %c = arith.constant 3 : i16
    %r = arith.muli %a, %c : i16
    img.yield %r : i16
  }}
  %t = img.lut %x table({_table("ui8", "i16", 256, 2)}) : {ft} -> {wt}
  %s = img.stencil %t window [3, 3] border mirror : ({wt}) -> {wt} {{
  ^bb0(%p0: i16, %p1: i16, %p2: i16, %p3: i16, %p4: i16, %p5: i16, %p6: i16, %p7: i16, %p8: i16):
    %a = arith.maxsi %p0, %p8 : i16
    %b = arith.subi %a, %p4 : i16
    img.yield %b : i16
  }}
  func.return %m, %s : {wt}, {wt}
}}"""
    check(text)
    ctx = make_context()
    module = parse_module(ctx, text, "t.mlir")
    compile_pipeline(ctx, module).close()
    ir = print_module(module)
    assert (
        "%l = img.lut %x table" in ir
        and "{img.compute = #img<compute inline>}" in ir.split("%l = img.lut")[1].split("\n")[0]
    )
    assert "#img<compute line_buffer>" in ir.split("%t = img.lut")[1].split("\n")[0]


@pytest.mark.parametrize("mode", ["nearest", "average"])
@pytest.mark.parametrize("border", ["clamp", "mirror", "zero"])
@pytest.mark.parametrize("element", ["ui8", "i16", "f32"])
def test_odd_sizes_ceil(mode: str, border: str, element: str) -> None:
    h, w, fy, fx = 37, 53, 3, 4
    oh, ow = -(-h // fy), -(-w // fx)
    ft, ot = f"!img.frame<{h}x{w}x3x{element}>", f"!img.frame<{oh}x{ow}x3x{element}>"
    border_text = f" border {border}" if mode == "average" else ""
    check(f"""func.func @f(%x: {ft}) -> {ot} {{
  %d = img.downsample %x factor [{fy}, {fx}] mode {mode} rounding ceil{border_text} : {ft} -> {ot}
  func.return %d : {ot}
}}""")


@pytest.mark.parametrize("mode", ["nearest", "average"])
@pytest.mark.parametrize("size", [(37, 53), (5, 70), (2, 3)])
def test_odd_sizes_floor(mode: str, size: tuple[int, int]) -> None:
    h, w = size
    oh, ow = h // 2, w // 2
    ft, ot = f"!img.frame<{h}x{w}x1xui8>", f"!img.frame<{oh}x{ow}x1xui8>"
    check(f"""func.func @f(%x: {ft}) -> {ot} {{
  %d = img.downsample %x factor [2, 2] mode {mode} rounding floor : {ft} -> {ot}
  func.return %d : {ot}
}}""")


def test_stencil_after_a_ceil_downsample() -> None:
    """A ceil downsample read by a 5x3 erosion (a mirror border folding rows past the
    partial block) and itself reading through a mirror border: the line buffers hold the
    folded rows."""
    ft, dt = "!img.frame<41x67x1xui8>", "!img.frame<21x34x1xui8>"
    args = ", ".join(f"%p{i}: i8" for i in range(15))
    mins = ["%m0 = arith.minui %p0, %p1 : i8"] + [
        f"%m{i} = arith.minui %m{i - 1}, %p{i + 1} : i8" for i in range(1, 14)
    ]
    body = "\n    ".join(mins)
    check(f"""func.func @f(%x: {ft}) -> {dt} {{
  %d = img.downsample %x factor [2, 2] mode average rounding ceil border mirror : {ft} -> {dt}
  %e = img.stencil %d window [5, 3] border mirror : ({dt}) -> {dt} {{
  ^bb0({args}):
    {body}
    img.yield %m13 : i8
  }}
  func.return %e : {dt}
}}""")


GAMMA = ", ".join(str(int(255.0 * (v / 255.0) ** (1 / 2.2) + 0.5)) for v in range(256))


@pytest.mark.parametrize("size", [(37, 53), (64, 96)])
def test_gamma_before_a_downsample_is_hoisted(size: tuple[int, int]) -> None:
    """The issue's pipeline: a gamma table then a nearest downsample (odd sizes: ceil). The
    default pipeline runs the table on the kept pixels only; --no-hoist keeps the order."""
    h, w = size
    oh, ow = -(-h // 2), -(-w // 2)
    ft, ot = f"!img.frame<{h}x{w}x1xui8>", f"!img.frame<{oh}x{ow}x1xui8>"
    text = f"""func.func @f(%x: {ft}) -> {ot} {{
  %g = img.lut %x table(dense<[{GAMMA}]> : tensor<256xui8>) : {ft} -> {ft}
  %d = img.downsample %g factor [2, 2] mode nearest rounding ceil : {ft} -> {ot}
  func.return %d : {ot}
}}"""
    assert check(text) == ["hoisted img.downsample of %d above img.lut %g (runs on 1/4 of the pixels)"]
    assert check(text, hoist=False) == []


def test_hoisting_in_a_camera_pipeline() -> None:
    """A crop and a gate climb through a table on a stream; the frame program delivers what
    the reference delivers, frame by frame."""
    st, ct = "!img.stream<24x40x1xui8>", "!img.stream<8x16x1xui8>"
    text = f"""func.func @cam() {{
  %s = img.source {{fps = 30.0 : f64, camera = "cam"}} : {st}
  %m = img.crop %s roi [0, 0, 1, 1] : {st} -> !img.stream<1x1x1xui8>
  %p = img.map %m : (!img.stream<1x1x1xui8>) -> !img.stream<1x1x1xui8> {{
  ^bb0(%v: i8):
    %k = arith.constant 127 : i8
    %c = arith.cmpi ugt, %v, %k : i8
    %r = arith.extui %c : i1 to i8
    img.yield %r : i8
  }}
  %g = img.lut %s table(dense<[{GAMMA}]> : tensor<256xui8>) : {st} -> {st}
  %k = img.gate %g, %p {{pass_rate = 0.5 : f64}} : {st}, !img.stream<1x1x1xui8> -> {st}
  %c = img.crop %k roi [3, 5, 8, 16] : {st} -> {ct}
  img.sink %c : {ct}
  func.return
}}"""
    ctx = make_context()
    module = parse_module(ctx, text, "cam.mlir")
    verify(module)
    fn = entry_function(module)
    rng = np.random.default_rng(3)
    frames = {"cam": [rng.integers(0, 256, (24, 40, 1)).astype(np.uint8) for _ in range(6)]}
    sinks: list = []
    reference(fn.clone(), [], frames, sinks)
    hoisted: list[str] = []
    exe = compile_program(ctx, module, hoisted=hoisted)
    try:
        got = exe.run([], frames)
        assert 0 < len(got.sinks[0]) == len(sinks[0]) < 6  # the gate dropped some frames, kept others
        _same(got.sinks[0], sinks[0])
    finally:
        exe.close()
    assert any("img.crop" in line and "img.lut" in line for line in hoisted), hoisted
    assert any("img.gate" in line for line in hoisted), hoisted
