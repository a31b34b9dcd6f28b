"""The img reference semantics against independent numpy formulations, op by op."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run
from tessel.ir.source import parse_module

RNG = np.random.default_rng(0)


def _fn(text: str) -> func.FuncOp:
    return next(o for o in parse_module(make_context(), text, "t.mlir").ops if isinstance(o, func.FuncOp))


def _one(body: str, arg_t: str, out_t: str, *inputs):  # noqa: ANN002, ANN202
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_t.split(";")))
    text = f"func.func @f({args}) -> {out_t} {{\n{body}\n  func.return %y : {out_t}\n}}\n"
    return run(_fn(text), list(inputs))[0]


@pytest.mark.parametrize("border,mode", [("clamp", "edge"), ("zero", "constant"), ("mirror", "reflect")])
def test_stencil_borders(border, mode):
    x = RNG.integers(0, 256, (7, 9, 2), dtype=np.uint8)
    args = ", ".join(f"%p{i}: i8" for i in range(15))
    body = f"""  %y = img.stencil %a0 window [3, 5] border {border} : (!img.frame<7x9x2xui8>) -> !img.frame<7x9x2xui8> {{
  ^bb0({args}):
    %m = arith.maxui %p0, %p14 : i8
    %s = arith.subi %m, %p7 : i8
    img.yield %s : i8
  }}"""
    got = _one(body, "!img.frame<7x9x2xui8>", "!img.frame<7x9x2xui8>", x)
    p = np.pad(x, ((1, 1), (2, 2), (0, 0)), mode=mode)
    want = (np.maximum(p[0:7, 0:9], p[2:9, 4:13]) - p[1:8, 2:11]).astype(np.uint8)  # p7 is the centre
    assert np.array_equal(got, want)


def test_signed_division_truncates_and_shifts_saturate():
    x = np.array([[[-7], [7], [-128], [5]]], dtype=np.int8)
    body = """  %y = img.map %a0 : (!img.frame<1x4x1xi8>) -> !img.frame<1x4x1xi8> {
  ^bb0(%v: i8):
    %two = arith.constant 2 : i8
    %q = arith.divsi %v, %two : i8
    %nine = arith.constant 9 : i8
    %s = arith.shrsi %v, %nine : i8
    %r = arith.addi %q, %s : i8
    img.yield %r : i8
  }"""
    got = _one(body, "!img.frame<1x4x1xi8>", "!img.frame<1x4x1xi8>", x)
    # -7/2 = -3 (toward zero); shrsi by >= 8 gives the sign (-1 or 0)
    assert got.reshape(-1).tolist() == [-3 - 1, 3, -64 - 1, 2]


def test_downsample_average_rounds_half_up_and_reduce_scan_wrap():
    x = np.array([[1, 2], [2, 2]], dtype=np.uint8).reshape(2, 2, 1)
    got = _one(
        "  %y = img.downsample %a0 factor [2, 2] mode average : !img.frame<2x2x1xui8> -> !img.frame<1x1x1xui8>",
        "!img.frame<2x2x1xui8>",
        "!img.frame<1x1x1xui8>",
        x,
    )
    assert got.item() == 2  # 7/4 = 1.75 -> 2
    big = np.full((4, 4, 1), 2**30, dtype=np.int32)
    s = _one(
        "  %y = img.reduce %a0 kind sum : !img.frame<4x4x1xi32> -> !img.frame<1x1x1xi32>",
        "!img.frame<4x4x1xi32>",
        "!img.frame<1x1x1xi32>",
        big,
    )
    assert s.item() == 0  # 16 * 2^30 wraps to 0 in int32
    y = RNG.integers(0, 256, (5, 6, 1), dtype=np.uint8)
    ii = _one(
        "  %y = img.scan %a0 : !img.frame<5x6x1xui8> -> !img.frame<5x6x1xi32>",
        "!img.frame<5x6x1xui8>",
        "!img.frame<5x6x1xi32>",
        y,
    )
    assert ii[4, 5, 0] == y.astype(np.int64).sum() and ii[2, 3, 0] == y[:3, :4].astype(np.int64).sum()


def test_gate_thins_a_stream_and_maps_broadcast_frames():
    text = """func.func @f(%bg: !img.frame<2x2x1xui8>) -> !img.stream<2x2x1xui8> {
  %s = img.source {fps = 10.0 : f64, camera = "c"} : !img.stream<2x2x1xui8>
  %d = img.map %s, %bg : (!img.stream<2x2x1xui8>, !img.frame<2x2x1xui8>) -> !img.stream<2x2x1xui8> {
  ^bb0(%a: i8, %b: i8):
    %r = arith.subi %a, %b : i8
    img.yield %r : i8
  }
  %m = img.reduce %d kind max : !img.stream<2x2x1xui8> -> !img.stream<1x1x1xui8>
  %g = img.gate %s, %m {pass_rate = 0.5 : f64} : !img.stream<2x2x1xui8>, !img.stream<1x1x1xui8> -> !img.stream<2x2x1xui8>
  func.return %g : !img.stream<2x2x1xui8>
}
"""
    bg = np.full((2, 2, 1), 5, np.uint8)
    frames = [np.full((2, 2, 1), v, np.uint8) for v in (5, 9, 5, 6)]
    out = run(_fn(text), [bg], {"c": frames})[0]
    assert [f[0, 0, 0] for f in out] == [9, 6]  # the frames that differ from the background


def test_dense_extract_merge_remap():
    x = RNG.integers(0, 256, (2, 3, 1), dtype=np.uint8)
    w = RNG.integers(-128, 128, (6, 4, 1), dtype=np.int8)
    got = _one(
        "  %y = img.dense %a0, %a1 : !img.frame<2x3x1xui8>, !img.frame<6x4x1xi8> -> !img.frame<1x1x4xi32>",
        "!img.frame<2x3x1xui8>;!img.frame<6x4x1xi8>",
        "!img.frame<1x1x4xi32>",
        x,
        w,
    )
    assert np.array_equal(got.reshape(-1), x.reshape(-1).astype(np.int64) @ w[..., 0].astype(np.int64))
    rgb = RNG.integers(0, 256, (3, 3, 3), dtype=np.uint8)
    body = """  %r = img.extract %a0 channel 2 : !img.frame<3x3x3xui8> -> !img.frame<3x3x1xui8>
  %g = img.extract %a0 channel 0 : !img.frame<3x3x3xui8> -> !img.frame<3x3x1xui8>
  %y = img.merge %r, %g : (!img.frame<3x3x1xui8>, !img.frame<3x3x1xui8>) -> !img.frame<3x3x2xui8>"""
    got = _one(body, "!img.frame<3x3x3xui8>", "!img.frame<3x3x2xui8>", rgb)
    assert np.array_equal(got, rgb[..., [2, 0]])
    lut = np.zeros((2, 2, 2), np.int16)
    lut[..., 0], lut[..., 1] = [[0, 0], [2, 9]], [[1, -4], [2, 0]]
    got = _one(
        "  %y = img.remap %a0, %a1 max_displacement 4 : !img.frame<3x3x3xui8>, !img.frame<2x2x2xi16> -> !img.frame<2x2x3xui8>",
        "!img.frame<3x3x3xui8>;!img.frame<2x2x2xi16>",
        "!img.frame<2x2x3xui8>",
        rgb,
        lut,
    )
    assert np.array_equal(got[1, 0], rgb[2, 2]) and np.array_equal(got[0, 1], rgb[0, 0])  # clamped to the frame
