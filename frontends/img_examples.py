"""The example image pipelines as `img` IR text, for any frame size: 3x3 box blur,
separable Gaussian, Sobel magnitude, unsharp mask, an ISP-lite, a gamma lookup table before
a 2x2 downsample (the data reduction the default pipeline hoists above the table) and a
gamma table under a box blur, each in u8 and f32 (the table pipelines read u8 frames and
produce u8, or linear f32 in [0, 1]).

`examples/img/generate.py` writes them as .mlir files; the benchmark (bench/img.py) and
the tests build them at the sizes they need. The u8 variants use the integer arithmetic a
camera ISP would (16-bit sums, rounding shifts, saturation); the f32 ones work on [0, 1].

ISP-lite takes the raw Bayer mosaic (RGGB) as its four colour planes, as a sensor
interface delivers them, each (H/2) x (W/2): demosaic (superpixel: R, mean of the two
greens, B), white balance, gamma 1/2, a 3x3 Gaussian denoise and a 2x2 average downsample,
returning the R, G and B planes at (H/4) x (W/4).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

NAMES = ("box3x3", "gauss_sep", "sobel", "unsharp", "isp_lite", "gamma_down", "lut_blur")
TYPES = ("u8", "f32")


class Body:
    """Lines of one region body, with fresh SSA names."""

    def __init__(self, scalar: str):
        self.scalar = scalar
        self.lines: list[str] = []
        self.n = 0

    def op(self, text: str, ty: str) -> str:
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"    {name} = {text} : {ty}")
        return name

    def const(self, value: int | float, ty: str) -> str:
        lit = f"{float(value):.9e}" if ty == "f32" else str(int(value))
        return self.op(f"arith.constant {lit}", ty)

    def bin(self, name: str, a: str, b: str, ty: str) -> str:
        return self.op(f"arith.{name} {a}, {b}", ty)

    def cast(self, name: str, a: str, src: str, dst: str) -> str:
        self.n += 1
        v = f"%v{self.n}"
        self.lines.append(f"    {v} = arith.{name} {a} : {src} to {dst}")
        return v

    def sum(self, terms: list[str], ty: str) -> str:
        add = "addf" if ty == "f32" else "addi"
        acc = terms[0]
        for t in terms[1:]:
            acc = self.bin(add, acc, t, ty)
        return acc


def _frame(h: int, w: int, el: str) -> str:
    return f"!img.frame<{h}x{w}x1x{el}>"


def _region(
    kind: str,
    result: str,
    operands: list[str],
    in_types: list[str],
    out_type: str,
    attrs: str,
    arg_scalar: str | list[str],
    n_args: int,
    build: Callable[[Body, list[str]], str],
    out_scalar: str,
) -> list[str]:
    b = Body(out_scalar)
    args = [f"%p{i}" for i in range(n_args)]
    value = build(b, args)
    head = f"  {result} = img.{kind} {', '.join(operands)} {attrs}: ({', '.join(in_types)}) -> {out_type} {{"
    sig = (
        "  ^bb0("
        + ", ".join(
            f"{a}: {t}" for a, t in zip(args, arg_scalar if isinstance(arg_scalar, list) else [arg_scalar] * n_args)
        )
        + "):"
    )
    return [head, sig, *b.lines, f"    img.yield {value} : {out_scalar}", "  }"]


def _stencil(
    result: str, x: str, in_t: str, out_t: str, kh: int, kw: int, arg: str, out: str, build, border: str = "clamp"
) -> list[str]:
    attrs = f"window [{kh}, {kw}] border {border} "
    return _region("stencil", result, [x], [in_t], out_t, attrs, arg, kh * kw, build, out)


def _map(result: str, xs: list[str], in_ts: list[str], out_t: str, args: list[str], out: str, build) -> list[str]:
    return _region("map", result, xs, in_ts, out_t, "", args, len(xs), build, out)


def _weighted(b: Body, ps: list[str], weights: Sequence[int | float], ty: str) -> str:
    """sum of w*p, skipping zero weights; integer weights by shifts/adds, f32 by mulf."""
    terms = []
    for p, w in zip(ps, weights):
        if w == 0:
            continue
        if ty == "f32":
            terms.append(p if w == 1 else b.bin("mulf", p, b.const(w, "f32"), "f32"))
        else:
            terms.append(p if w == 1 else b.bin("muli", p, b.const(w, ty), ty))
    return b.sum(terms, ty)


def _widen(b: Body, ps: list[str], ty: str) -> list[str]:
    return [b.cast("extui", p, "i8", ty) for p in ps] if ty != "f32" else ps


# ---------------------------------------------------------------------------- pipelines


def box3x3(h: int, w: int, t: str) -> list[str]:
    el = "ui8" if t == "u8" else "f32"
    s = "i8" if t == "u8" else "f32"
    ft = _frame(h, w, el)

    def body(b: Body, ps: list[str]) -> str:
        if t == "f32":
            return b.bin("mulf", b.sum(ps, "f32"), b.const(1.0 / 9.0, "f32"), "f32")
        total = b.sum(_widen(b, ps, "i16"), "i16")
        q = b.bin("divui", b.bin("addi", total, b.const(4, "i16"), "i16"), b.const(9, "i16"), "i16")
        return b.cast("trunci", q, "i16", "i8")

    return [
        f"func.func @box3x3(%x: {ft}) -> {ft} {{",
        *_stencil("%y", "%x", ft, ft, 3, 3, s, s, body),
        f"  func.return %y : {ft}",
        "}",
    ]


def _gauss_sep_ops(h: int, w: int, t: str, x: str, out: str) -> list[str]:
    """x -> 1x3 [1 2 1] -> 3x1 [1 2 1] (u8: a u16 intermediate, (sum + 8) >> 4)."""
    if t == "f32":
        ft = _frame(h, w, "f32")

        def tap(b: Body, ps: list[str]) -> str:
            return _weighted(b, ps, [0.25, 0.5, 0.25], "f32")

        return _stencil(f"{out}_h", x, ft, ft, 1, 3, "f32", "f32", tap) + _stencil(
            out, f"{out}_h", ft, ft, 3, 1, "f32", "f32", tap
        )
    f8, f16 = _frame(h, w, "ui8"), _frame(h, w, "ui16")

    def horizontal(b: Body, ps: list[str]) -> str:
        return _weighted(b, _widen(b, ps, "i16"), [1, 2, 1], "i16")

    def vertical(b: Body, ps: list[str]) -> str:
        total = _weighted(b, ps, [1, 2, 1], "i16")
        r = b.bin("shrui", b.bin("addi", total, b.const(8, "i16"), "i16"), b.const(4, "i16"), "i16")
        return b.cast("trunci", r, "i16", "i8")

    return _stencil(f"{out}_h", x, f8, f16, 1, 3, "i8", "i16", horizontal) + _stencil(
        out, f"{out}_h", f16, f8, 3, 1, "i16", "i8", vertical
    )


def gauss_sep(h: int, w: int, t: str) -> list[str]:
    ft = _frame(h, w, "ui8" if t == "u8" else "f32")
    return [
        f"func.func @gauss_sep(%x: {ft}) -> {ft} {{",
        *_gauss_sep_ops(h, w, t, "%x", "%y"),
        f"  func.return %y : {ft}",
        "}",
    ]


def sobel(h: int, w: int, t: str) -> list[str]:
    """|gx| + |gy| saturated to 255 (u8), sqrt(gx^2 + gy^2) (f32)."""
    gx_w, gy_w = [-1, 0, 1, -2, 0, 2, -1, 0, 1], [-1, -2, -1, 0, 0, 0, 1, 2, 1]
    if t == "f32":
        ft = _frame(h, w, "f32")

        def grad(weights):
            return lambda b, ps: _weighted(b, ps, weights, "f32")

        def mag(b: Body, ps: list[str]) -> str:
            gx, gy = ps
            return b.op(
                f"math.sqrt {b.bin('addf', b.bin('mulf', gx, gx, 'f32'), b.bin('mulf', gy, gy, 'f32'), 'f32')}", "f32"
            )

        lines = _stencil("%gx", "%x", ft, ft, 3, 3, "f32", "f32", grad(gx_w)) + _stencil(
            "%gy", "%x", ft, ft, 3, 3, "f32", "f32", grad(gy_w)
        )
        lines += _map("%y", ["%gx", "%gy"], [ft, ft], ft, ["f32", "f32"], "f32", mag)
        return [f"func.func @sobel(%x: {ft}) -> {ft} {{", *lines, f"  func.return %y : {ft}", "}"]
    f8, f16 = _frame(h, w, "ui8"), _frame(h, w, "i16")

    def igrad(weights):
        return lambda b, ps: _weighted(b, _widen(b, ps, "i16"), weights, "i16")

    def imag(b: Body, ps: list[str]) -> str:
        gx, gy = ps
        s = b.bin("addi", b.op(f"math.absi {gx}", "i16"), b.op(f"math.absi {gy}", "i16"), "i16")
        return b.cast("trunci", b.bin("minui", s, b.const(255, "i16"), "i16"), "i16", "i8")

    lines = _stencil("%gx", "%x", f8, f16, 3, 3, "i8", "i16", igrad(gx_w)) + _stencil(
        "%gy", "%x", f8, f16, 3, 3, "i8", "i16", igrad(gy_w)
    )
    lines += _map("%y", ["%gx", "%gy"], [f16, f16], f8, ["i16", "i16"], "i8", imag)
    return [f"func.func @sobel(%x: {f8}) -> {f8} {{", *lines, f"  func.return %y : {f8}", "}"]


def unsharp(h: int, w: int, t: str) -> list[str]:
    """x + (x - gauss(x)) = 2x - blur, clamped to the range (u8: [0, 255], f32: [0, 1])."""
    ft = _frame(h, w, "ui8" if t == "u8" else "f32")
    lines = _gauss_sep_ops(h, w, t, "%x", "%blur")
    if t == "f32":

        def sharpen(b: Body, ps: list[str]) -> str:
            x, blur = ps
            v = b.bin("subf", b.bin("addf", x, x, "f32"), blur, "f32")
            return b.bin("minimumf", b.bin("maximumf", v, b.const(0.0, "f32"), "f32"), b.const(1.0, "f32"), "f32")

        lines += _map("%y", ["%x", "%blur"], [ft, ft], ft, ["f32", "f32"], "f32", sharpen)
    else:

        def isharpen(b: Body, ps: list[str]) -> str:
            x, blur = _widen(b, ps, "i16")
            v = b.bin("subi", b.bin("addi", x, x, "i16"), blur, "i16")
            v = b.bin("minsi", b.bin("maxsi", v, b.const(0, "i16"), "i16"), b.const(255, "i16"), "i16")
            return b.cast("trunci", v, "i16", "i8")

        lines += _map("%y", ["%x", "%blur"], [ft, ft], ft, ["i8", "i8"], "i8", isharpen)
    return [f"func.func @unsharp(%x: {ft}) -> {ft} {{", *lines, f"  func.return %y : {ft}", "}"]


WB = {"r": 1.6, "g": 1.0, "b": 1.4}  # white-balance gains


def _wb_gamma(b: Body, v: str, gain: float, t: str) -> str:
    """f32: min(x * gain, 1) then gamma 1/2 (sqrt)."""
    g = b.bin("minimumf", b.bin("mulf", v, b.const(gain, "f32"), "f32"), b.const(1.0, "f32"), "f32")
    return b.op(f"math.sqrt {g}", "f32")


def _wb_gamma_u8(b: Body, v: str, gain: float) -> str:
    """u8: min((x * gain_q8 + 128) >> 8, 255) in i32, then round(sqrt(255 x)) through f32."""
    wide = b.cast("extui", v, "i8", "i32")
    scaled = b.bin("muli", wide, b.const(round(gain * 256), "i32"), "i32")
    q = b.bin("shrui", b.bin("addi", scaled, b.const(128, "i32"), "i32"), b.const(8, "i32"), "i32")
    q = b.bin("minui", q, b.const(255, "i32"), "i32")
    f = b.cast("uitofp", q, "i32", "f32")
    g = b.op(f"math.sqrt {b.bin('mulf', f, b.const(255.0, 'f32'), 'f32')}", "f32")
    return b.cast("fptoui", b.bin("addf", g, b.const(0.5, "f32"), "f32"), "f32", "i8")


def isp_lite(h: int, w: int, t: str) -> list[str]:
    """Raw planes (h/2 x w/2 each) -> R, G, B at h/4 x w/4."""
    el, s = ("ui8", "i8") if t == "u8" else ("f32", "f32")
    ph, pw = h // 2, w // 2
    pt, ot = _frame(ph, pw, el), _frame(ph // 2, pw // 2, el)
    lines: list[str] = []
    for c in "rgb":
        gain = WB[c]
        if c == "g":

            def demosaic(b: Body, ps: list[str], gain=gain) -> str:
                if t == "f32":
                    v = b.bin("mulf", b.bin("addf", ps[0], ps[1], "f32"), b.const(0.5, "f32"), "f32")
                    return _wb_gamma(b, v, gain, t)
                a0, a1 = (b.cast("extui", p, "i8", "i16") for p in ps)
                m = b.bin(
                    "shrui",
                    b.bin("addi", b.bin("addi", a0, a1, "i16"), b.const(1, "i16"), "i16"),
                    b.const(1, "i16"),
                    "i16",
                )
                return _wb_gamma_u8(b, b.cast("trunci", m, "i16", "i8"), gain)

            lines += _map("%g_lin", ["%gr", "%gb"], [pt, pt], pt, [s, s], s, demosaic)
        else:

            def balance(b: Body, ps: list[str], gain=gain) -> str:
                return _wb_gamma(b, ps[0], gain, t) if t == "f32" else _wb_gamma_u8(b, ps[0], gain)

            lines += _map(f"%{c}_lin", [f"%{c}"], [pt], pt, [s], s, balance)

        def denoise(b: Body, ps: list[str]) -> str:
            weights = [1, 2, 1, 2, 4, 2, 1, 2, 1]
            if t == "f32":
                return _weighted(b, ps, [x / 16 for x in weights], "f32")
            total = _weighted(b, _widen(b, ps, "i16"), weights, "i16")
            r = b.bin("shrui", b.bin("addi", total, b.const(8, "i16"), "i16"), b.const(4, "i16"), "i16")
            return b.cast("trunci", r, "i16", "i8")

        lines += _stencil(f"%{c}_dn", f"%{c}_lin", pt, pt, 3, 3, s, s, denoise)
        lines.append(f"  %{c}_out = img.downsample %{c}_dn factor [2, 2] mode average : {pt} -> {ot}")
    head = f"func.func @isp_lite(%r: {pt}, %gr: {pt}, %gb: {pt}, %b: {pt}) -> ({ot}, {ot}, {ot}) {{"
    return [head, *lines, f"  func.return %r_out, %g_out, %b_out : {ot}, {ot}, {ot}", "}"]


def gamma_table(t: str) -> list[int] | list[float]:
    """u8: sRGB-like encoding, 255 * (v / 255) ** (1 / 2.2) rounded; f32: decoding to linear
    light, (v / 255) ** 2.2 (what cv2.LUT and a Halide table get too)."""
    if t == "u8":
        return [int(255.0 * (v / 255.0) ** (1 / 2.2) + 0.5) for v in range(256)]
    return [float(np.float32((v / 255.0) ** 2.2)) for v in range(256)]


def _lut(result: str, x: str, h: int, w: int, t: str) -> str:
    table = gamma_table(t)
    el = "ui8" if t == "u8" else "f32"
    values = ", ".join(str(v) if t == "u8" else f"{v:.9e}" for v in table)
    return (
        f"  {result} = img.lut {x} table(dense<[{values}]> : tensor<256x{el}>) : "
        f"{_frame(h, w, 'ui8')} -> {_frame(h, w, el)}"
    )


def gamma_down(h: int, w: int, t: str) -> list[str]:
    """A gamma table on every pixel, then every other row and column (nearest 2x2)."""
    el = "ui8" if t == "u8" else "f32"
    ft, ot = _frame(h, w, el), _frame(h // 2, w // 2, el)
    return [
        f"func.func @gamma_down(%x: {_frame(h, w, 'ui8')}) -> {ot} {{",
        _lut("%g", "%x", h, w, t),
        f"  %y = img.downsample %g factor [2, 2] mode nearest : {ft} -> {ot}",
        f"  func.return %y : {ot}",
        "}",
    ]


def lut_blur(h: int, w: int, t: str) -> list[str]:
    """A gamma table under a 3x3 box blur."""
    blur = box3x3(h, w, t)
    return [
        f"func.func @lut_blur(%x: {_frame(h, w, 'ui8')}) -> {_frame(h, w, 'ui8' if t == 'u8' else 'f32')} {{",
        _lut("%g", "%x", h, w, t),
        *(line.replace("img.stencil %x ", "img.stencil %g ") for line in blur[1:]),
    ]


BUILDERS = {
    "box3x3": box3x3,
    "gauss_sep": gauss_sep,
    "sobel": sobel,
    "unsharp": unsharp,
    "isp_lite": isp_lite,
    "gamma_down": gamma_down,
    "lut_blur": lut_blur,
}


def pipeline_text(name: str, t: str, h: int = 1080, w: int = 1920) -> str:
    """The module text of example `name` in type `t` (u8 or f32) for h x w frames (for
    isp_lite, h x w is the raw mosaic)."""
    if name not in BUILDERS or t not in TYPES:
        raise ValueError(f"unknown example {name}/{t} (examples: {', '.join(NAMES)}; types: {', '.join(TYPES)})")
    doc = (BUILDERS[name].__doc__ or name).strip().splitlines()[0]
    return f"// {name} ({t}, {h}x{w}): {doc}\n" + "\n".join(BUILDERS[name](h, w, t)) + "\n"
