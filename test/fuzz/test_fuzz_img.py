"""Differential fuzzing of camera pipelines on the CPU target: random stream programs (maps
with frame operands, stencils with every border, lookup tables, resampling of sizes the
factor divides or not, crops, channel ops, reductions feeding gates, integral images, LUT
warps, dense layers, encoders) compiled as frame
programs must deliver to every sink exactly what the numpy reference delivers, frame by
frame, including which frames the gates drop."""

from __future__ import annotations

from profile import fuzz

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tessel.dialects.context import make_context
from tessel.dialects.img.reference import run as reference
from tessel.dialects.img.types import numpy_dtype
from tessel.ir.source import parse_module, verify
from tessel.pipelines.img import compile_program, entry_function, random_inputs

SCALAR = {"ui8": "i8", "i16": "i16", "i32": "i32", "f32": "f32"}


class Pipeline:
    """A stream program being drawn, as text: values are (name, h, w, c, element, stream)."""

    def __init__(self) -> None:
        self.args: list[tuple[str, str]] = []
        self.lines: list[str] = []
        self.values: list[tuple[str, int, int, int, str, bool]] = []
        self.n = 0

    def t(self, h: int, w: int, c: int, e: str, stream: bool = True) -> str:
        return f"!img.{'stream' if stream else 'frame'}<{h}x{w}x{c}x{e}>"

    def new(self, h: int, w: int, c: int, e: str, stream: bool = True) -> str:
        self.n += 1
        name = f"%v{self.n}"
        self.values.append((name, h, w, c, e, stream))
        return name

    def arg(self, h: int, w: int, c: int, e: str) -> str:
        name = f"%a{len(self.args)}"
        self.args.append((name, self.t(h, w, c, e, False)))
        return name


def _unary_body(draw, e: str) -> list[str]:  # noqa: ANN001
    s = SCALAR[e]
    if e == "f32":
        op = draw(st.sampled_from(["arith.addf", "arith.mulf", "arith.maximumf"]))
        return [
            f"%k = arith.constant {draw(st.sampled_from(['0.5', '-1.25', '3.0']))} : f32",
            f"%r = {op} %x0, %k : f32",
        ]
    op = draw(st.sampled_from(["arith.addi", "arith.xori", "arith.maxui", "arith.muli", "arith.shrui"]))
    k = draw(st.integers(1, 7)) if op == "arith.shrui" else draw(st.integers(-100, 100))
    return [f"%k = arith.constant {k} : {s}", f"%r = {op} %x0, %k : {s}"]


@st.composite
def pipelines(draw) -> str:  # noqa: ANN001
    p = Pipeline()
    h, w = draw(st.integers(2, 6)) * 2, draw(st.integers(2, 7)) * 2
    c = draw(st.sampled_from([1, 1, 3]))
    e = draw(st.sampled_from(["ui8", "ui8", "i16", "f32"]))
    src = p.new(h, w, c, e)
    p.lines.append(f'{src} = img.source {{fps = 10 : f64, camera = "cam"}} : {p.t(h, w, c, e)}')
    for _ in range(draw(st.integers(1, 7))):
        x, h, w, c, e, stream = p.values[draw(st.integers(0, len(p.values) - 1))]
        s = SCALAR[e]
        kind = draw(st.sampled_from(["map", "map2", "stencil", "down", "up", "crop", "gate", "scan", "extract", "remap",
                                     "dense", "encode", "lut", "down_odd"]))  # fmt: skip
        tx = p.t(h, w, c, e, stream)
        if kind == "map":
            y = p.new(h, w, c, e, stream)
            body = "\n    ".join(_unary_body(draw, e))
            p.lines.append(
                f"{y} = img.map {x} : ({tx}) -> {tx} {{\n  ^bb0(%x0: {s}):\n    {body}\n    img.yield %r : {s}\n  }}"
            )
        elif kind == "map2":
            a = p.arg(h, w, c, e)
            y = p.new(h, w, c, e, stream)
            op = "arith.subf" if e == "f32" else draw(st.sampled_from(["arith.subi", "arith.minui", "arith.addi"]))
            p.lines.append(f"{y} = img.map {x}, {a} : ({tx}, {p.t(h, w, c, e, False)}) -> {tx} {{\n  ^bb0(%x0: {s}, %x1: {s}):\n"
                           f"    %r = {op} %x0, %x1 : {s}\n    img.yield %r : {s}\n  }}")  # fmt: skip
        elif kind == "stencil":
            kh, kw = draw(st.sampled_from([(3, 3), (1, 3), (3, 1), (5, 5)]))
            border = draw(st.sampled_from(["clamp", "mirror", "zero"]))
            taps = draw(st.lists(st.integers(0, kh * kw - 1), min_size=2, max_size=4))
            add = "arith.addf" if e == "f32" else "arith.addi"
            body = [f"%s1 = {add} %p{taps[0]}, %p{taps[1]} : {s}"]
            for i, tp in enumerate(taps[2:], 2):
                body.append(f"%s{i} = {add} %s{i - 1}, %p{tp} : {s}")
            y = p.new(h, w, c, e, stream)
            args = ", ".join(f"%p{i}: {s}" for i in range(kh * kw))
            body_text = "\n    ".join(body)
            p.lines.append(f'{y} = img.stencil {x} window [{kh}, {kw}] border {border} : ({tx}) -> {tx} {{\n'
                           f"  ^bb0({args}):\n    {body_text}\n    img.yield %s{len(taps) - 1} : {s}\n  }}")  # fmt: skip
        elif kind == "down" and h % 2 == 0 and w % 2 == 0 and h > 2:
            mode = draw(st.sampled_from(["nearest", "average"]))
            y = p.new(h // 2, w // 2, c, e, stream)
            p.lines.append(
                f"{y} = img.downsample {x} factor [2, 2] mode {mode} : {tx} -> {p.t(h // 2, w // 2, c, e, stream)}"
            )
        elif kind == "lut" and e == "ui8":
            oe = draw(st.sampled_from(["ui8", "i16", "i32", "f32"]))
            n = draw(st.sampled_from([256, 17, 1]))
            if oe == "f32":
                values = [f"{v:.3f}" for v in draw(st.lists(st.floats(-8, 8, width=16), min_size=n, max_size=n))]
            else:
                lo, hi = {"ui8": (0, 255), "i16": (-32768, 32767), "i32": (-(2**31), 2**31 - 1)}[oe]
                values = [str(v) for v in draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n))]
            y = p.new(h, w, c, oe, stream)
            p.lines.append(
                f"{y} = img.lut {x} table(dense<[{', '.join(values)}]> : tensor<{n}x{oe}>) : {tx} -> {p.t(h, w, c, oe, stream)}"
            )
        elif kind == "down_odd":
            fy, fx = draw(st.sampled_from([2, 3])), draw(st.sampled_from([2, 3]))
            mode = draw(st.sampled_from(["nearest", "average"]))
            rounding = draw(st.sampled_from(["floor", "ceil"]))
            if rounding == "floor" and (fy > h or fx > w):
                continue
            oh, ow = (h // fy, w // fx) if rounding == "floor" else (-(-h // fy), -(-w // fx))
            border = (
                f" border {draw(st.sampled_from(['clamp', 'mirror', 'zero']))}"
                if mode == "average" and rounding == "ceil"
                else ""
            )
            y = p.new(oh, ow, c, e, stream)
            p.lines.append(
                f"{y} = img.downsample {x} factor [{fy}, {fx}] mode {mode} rounding {rounding}{border} : {tx} -> {p.t(oh, ow, c, e, stream)}"
            )
        elif kind == "up" and h * w <= 64:
            y = p.new(h * 2, w, c, e, stream)
            p.lines.append(f"{y} = img.upsample {x} factor [2, 1] : {tx} -> {p.t(h * 2, w, c, e, stream)}")
        elif kind == "crop" and h > 2 and w > 2:
            y = p.new(h - 2, w - 1, c, e, stream)
            p.lines.append(
                f"{y} = img.crop {x} roi [1, 1, {h - 2}, {w - 1}] : {tx} -> {p.t(h - 2, w - 1, c, e, stream)}"
            )
        elif kind == "gate" and stream:
            red = draw(st.sampled_from(["max", "min", "sum"]))
            re = e if red != "sum" else ("f32" if e == "f32" else "i32")
            r = p.new(1, 1, c, re)
            p.lines.append(f"{r} = img.reduce {x} kind {red} : {tx} -> {p.t(1, 1, c, re)}")
            rs = SCALAR[re]
            cmp = "%m = arith.cmpf ogt, %x0, %k : f32" if re == "f32" else f"%m = arith.cmpi ugt, %x0, %k : {rs}"
            k = "0.4" if re == "f32" else str(draw(st.integers(0, 200)))
            pred = p.new(1, 1, 1, "ui8")
            first = f"{r}_c0 = img.extract {r} channel 0 : {p.t(1, 1, c, re)} -> {p.t(1, 1, 1, re)}" if c > 1 else None
            rin = f"{r}_c0" if c > 1 else r
            if first:
                p.lines.append(first)
            p.lines.append(f"{pred} = img.map {rin} : ({p.t(1, 1, 1, re)}) -> {p.t(1, 1, 1, 'ui8')} {{\n  ^bb0(%x0: {rs}):\n"
                           f"    %k = arith.constant {k} : {rs}\n    {cmp}\n    %r = arith.extui %m : i1 to i8\n    img.yield %r : i8\n  }}")  # fmt: skip
            g, gh, gw, gc, ge, _ = draw(
                st.sampled_from([v for v in p.values if v[5]])
            )  # any stream before the predicate
            y = p.new(gh, gw, gc, ge)
            p.lines.append(
                f"{y} = img.gate {g}, {pred} {{pass_rate = 0.5 : f64}} : {p.t(gh, gw, gc, ge)}, {p.t(1, 1, 1, 'ui8')} -> {p.t(gh, gw, gc, ge)}"
            )
        elif kind == "scan":
            oe = "f32" if e == "f32" else "i32"
            y = p.new(h, w, c, oe, stream)
            p.lines.append(f"{y} = img.scan {x} : {tx} -> {p.t(h, w, c, oe, stream)}")
        elif kind == "extract" and c == 3:
            y = p.new(h, w, 1, e, stream)
            p.lines.append(
                f"{y} = img.extract {x} channel {draw(st.integers(0, 2))} : {tx} -> {p.t(h, w, 1, e, stream)}"
            )
            z = p.new(h, w, 3, e, stream)
            t1 = p.t(h, w, 1, e, stream)
            p.lines.append(f"{z} = img.merge {y}, {y}, {y} : ({t1}, {t1}, {t1}) -> {p.t(h, w, 3, e, stream)}")
        elif kind == "remap":
            lut = p.arg(5, 4, 2, "i16")
            y = p.new(5, 4, c, e, stream)
            p.lines.append(
                f"{y} = img.remap {x}, {lut} max_displacement 8 : {tx}, {p.t(5, 4, 2, 'i16', False)} -> {p.t(5, 4, c, e, stream)}"
            )
        elif kind == "dense" and e != "f32" and h * w * c <= 512:
            wt = p.arg(h * w * c, 5, 1, "i8")
            y = p.new(1, 1, 5, "i32", stream)
            p.lines.append(
                f"{y} = img.dense {x}, {wt} : {tx}, {p.t(h * w * c, 5, 1, 'i8', False)} -> {p.t(1, 1, 5, 'i32', stream)}"
            )
        elif kind == "encode":
            y = p.new(h, w, c, e, stream)
            p.lines.append(f"{y} = img.encode {x} {{ratio = 0.1 : f64, ops_per_pixel = 10.0 : f64}} : {tx} -> {tx}")
    sinks = draw(st.lists(st.integers(0, len(p.values) - 1), min_size=1, max_size=3, unique=True))
    for i in sinks:
        name, h, w, c, e, stream = p.values[i]
        p.lines.append(f"img.sink {name} : {p.t(h, w, c, e, stream)}")
    args = ", ".join(f"{n}: {t}" for n, t in p.args)
    return f"func.func @p({args}) {{\n  " + "\n  ".join(p.lines) + "\n  func.return\n}\n"


def _inputs(fn, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:  # noqa: ANN001
    rng = np.random.default_rng(seed)
    ins = random_inputs(fn, seed)
    src = next(op for op in fn.walk() if op.name == "img.source")
    shape, dt = src.result.type.shape, np.dtype(numpy_dtype(src.result.type.element))
    if dt.kind == "f":
        return ins, [rng.random(shape, dtype=np.float32) for _ in range(4)]
    return ins, [rng.integers(np.iinfo(dt).min, int(np.iinfo(dt).max) + 1, shape).astype(dt) for _ in range(4)]


@fuzz(ci=12, long=3000)
@given(pipelines(), st.integers(0, 2**32 - 1))
def test_random_camera_pipelines_match_the_reference(text: str, seed: int) -> None:
    ctx = make_context()
    module = parse_module(ctx, text, "fuzz.mlir")
    verify(module)
    fn = entry_function(module)
    original = fn.clone()
    exe = compile_program(ctx, module, threads=2)
    try:
        ins, frames = _inputs(original, seed)
        got = exe.run(ins, {"cam": frames})
        sinks: list = []
        reference(original, ins, {"cam": frames}, sinks)
        assert len(got.sinks) == len(sinks)
        for g, r in zip(got.sinks, sinks):
            assert len(g) == len(r), text
            for a, b in zip(g, r):
                b = np.asarray(b)
                assert a.shape == b.shape and a.dtype == b.dtype, text
                if a.dtype.kind == "f":
                    np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-5, err_msg=text)
                else:
                    np.testing.assert_array_equal(a, b, err_msg=text)
    finally:
        exe.close()
