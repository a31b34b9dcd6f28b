"""The benchmark's peers for the example image pipelines: Halide (PyPI `halide`, JIT) with a
hand schedule in the style of research/camera_vta.md A5, and OpenCV as a user would call it.

Halide schedule ("tiled"): 256x32 tiles of the output, the inner x vectorized (32 lanes
for u8, 16 for f32), tile rows in parallel, every non-trivial producer `compute_at` the
tile (the separable blur's horizontal pass, the ISP's linearized plane and denoised
plane, and the repeat_edge-clamped input itself); point-wise and single-use stencils
inline. Borders are `repeat_edge` (clamp), as
in the img examples, so Halide computes the same images (u8 bit-exact where the rounding
is the same; the benchmark prints the largest difference to the reference).

OpenCV: one call per stage on whole frames (cv2.blur, GaussianBlur, Sobel +
convertScaleAbs + add, addWeighted, LUT, resize INTER_AREA / INTER_NEAREST), BORDER_REPLICATE.

The table pipelines (gamma_down, lut_blur): OpenCV's cv2.LUT then cv2.resize or cv2.blur, as
written; Halide a table Func over a Buffer, indexed by the input (inlined into the
downsample, which then reads only the pixels it keeps; staged per tile under the blur).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tessel.frontends.img_examples import WB, gamma_table

Runner = Callable[[], list[np.ndarray]]


def _gamma_lut(gain: float) -> np.ndarray:
    v = np.arange(256, dtype=np.int64)
    q = np.minimum((v * round(gain * 256) + 128) >> 8, 255).astype(np.float32)
    return (np.sqrt(q * np.float32(255.0)) + np.float32(0.5)).astype(np.uint8)


def _gamma(t: str) -> np.ndarray[Any, np.dtype[np.uint8 | np.float32]]:
    """The table pipelines' table (frontends/img_examples.py gamma_table) as an array."""
    if t == "u8":
        return np.asarray(gamma_table(t), np.uint8)
    return np.asarray(gamma_table(t), np.float32)


# ----------------------------------------------------------------------------- OpenCV


def opencv(name: str, t: str, ins: list[np.ndarray], threads: int) -> Runner:
    import cv2

    cv2.setNumThreads(threads)
    rep = cv2.BORDER_REPLICATE
    planes = [a[:, :, 0] for a in ins]
    u8 = t == "u8"
    if name in ("gamma_down", "lut_blur"):
        table = _gamma(t)
        x = planes[0]
        h, w = x.shape
        if name == "gamma_down":
            return lambda: [cv2.resize(cv2.LUT(x, table), (w // 2, h // 2), interpolation=cv2.INTER_NEAREST)]
        return lambda: [cv2.blur(cv2.LUT(x, table), (3, 3), borderType=rep)]
    if name == "box3x3":
        return lambda: [cv2.blur(planes[0], (3, 3), borderType=rep)]
    if name == "gauss_sep":
        return lambda: [cv2.GaussianBlur(planes[0], (3, 3), 0, borderType=rep)]
    if name == "sobel":
        x = planes[0]
        if u8:

            def run() -> list[np.ndarray]:
                gx = cv2.Sobel(x, cv2.CV_16S, 1, 0, ksize=3, borderType=rep)
                gy = cv2.Sobel(x, cv2.CV_16S, 0, 1, ksize=3, borderType=rep)
                return [cv2.add(cv2.convertScaleAbs(gx), cv2.convertScaleAbs(gy))]
        else:

            def run() -> list[np.ndarray]:
                gx = cv2.Sobel(x, cv2.CV_32F, 1, 0, ksize=3, borderType=rep)
                gy = cv2.Sobel(x, cv2.CV_32F, 0, 1, ksize=3, borderType=rep)
                return [cv2.magnitude(gx, gy)]

        return run
    if name == "unsharp":
        x = planes[0]

        def run() -> list[np.ndarray]:
            v = cv2.addWeighted(x, 2.0, cv2.GaussianBlur(x, (3, 3), 0, borderType=rep), -1.0, 0.0)
            if not u8:
                cv2.min(cv2.max(v, 0.0, dst=v), 1.0, dst=v)  # type: ignore[call-overload]  # scalar bounds: OpenCV takes them, its stubs list arrays only
            return [v]

        return run
    if name == "isp_lite":
        r, gr, gb, b = planes
        h, w = r.shape
        if u8:
            luts = {c: _gamma_lut(WB[c]) for c in "rgb"}

            def run() -> list[np.ndarray]:
                g = cv2.addWeighted(gr, 0.5, gb, 0.5, 0.0)
                outs = []
                for c, p in zip("rgb", (r, g, b)):
                    d = cv2.GaussianBlur(cv2.LUT(p, luts[c]), (3, 3), 0, borderType=rep)
                    outs.append(cv2.resize(d, (w // 2, h // 2), interpolation=cv2.INTER_AREA))
                return outs
        else:

            def run() -> list[np.ndarray]:
                g = cv2.addWeighted(gr, 0.5, gb, 0.5, 0.0)
                outs = []
                for c, p in zip("rgb", (r, g, b)):
                    lin = cv2.sqrt(cv2.min(cv2.multiply(p, WB[c]), 1.0))  # type: ignore[call-overload]  # scalar operands, as above
                    d = cv2.GaussianBlur(lin, (3, 3), 0, borderType=rep)
                    outs.append(cv2.resize(d, (w // 2, h // 2), interpolation=cv2.INTER_AREA))
                return outs

        return run
    raise ValueError(name)


# ----------------------------------------------------------------------------- Halide


def halide(name: str, t: str, ins: list[np.ndarray], threads: int) -> Runner:
    os.environ["HL_NUM_THREADS"] = str(threads)
    import halide as hl

    if name in ("gamma_down", "lut_blur"):
        return _halide_table(name, t, ins)
    x, y = hl.Var("x"), hl.Var("y")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    u8 = t == "u8"
    el = hl.UInt(8) if u8 else hl.Float(32)
    lanes = 32 if u8 else 16
    params = [hl.ImageParam(el, 2, f"in{i}") for i in range(len(ins))]
    clamped = []
    for i, p in enumerate(params):
        c = hl.Func(f"clamped{i}")
        c[x, y] = hl.BoundaryConditions.repeat_edge(p)[x, y]
        clamped.append(c)
    producers: list[hl.Func] = []

    def f(name_: str) -> hl.Func:
        return hl.Func(name_)

    def sep(c: hl.Func, tag: str) -> tuple[hl.Func, hl.Func]:
        hf, out = f(f"h{tag}"), f(f"v{tag}")
        if u8:
            hf[x, y] = hl.u16(c[x - 1, y]) + 2 * hl.u16(c[x, y]) + hl.u16(c[x + 1, y])
            out[x, y] = hl.u8((hf[x, y - 1] + 2 * hf[x, y] + hf[x, y + 1] + 8) >> 4)
        else:
            hf[x, y] = 0.25 * c[x - 1, y] + 0.5 * c[x, y] + 0.25 * c[x + 1, y]
            out[x, y] = 0.25 * hf[x, y - 1] + 0.5 * hf[x, y] + 0.25 * hf[x, y + 1]
        return hf, out

    outputs: list[hl.Func] = []
    c = clamped[0]
    if name == "box3x3":
        out = f("box")
        taps = [c[x + dx, y + dy] for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        if u8:
            s = hl.u16(taps[0])
            for tp in taps[1:]:
                s = s + hl.u16(tp)
            out[x, y] = hl.u8((s + 4) / 9)
        else:
            s = taps[0]
            for tp in taps[1:]:
                s = s + tp
            out[x, y] = s * np.float32(1.0 / 9.0)
        outputs = [out]
    elif name == "gauss_sep":
        hf, out = sep(c, "")
        producers, outputs = [hf], [out]
    elif name == "sobel":
        g = f("g")
        g[x, y] = hl.i16(c[x, y]) if u8 else c[x, y]
        gx = (g[x + 1, y - 1] + 2 * g[x + 1, y] + g[x + 1, y + 1]) - (
            g[x - 1, y - 1] + 2 * g[x - 1, y] + g[x - 1, y + 1]
        )
        gy = (g[x - 1, y + 1] + 2 * g[x, y + 1] + g[x + 1, y + 1]) - (
            g[x - 1, y - 1] + 2 * g[x, y - 1] + g[x + 1, y - 1]
        )
        out = f("sobel")
        out[x, y] = hl.u8(hl.min(hl.abs(gx) + hl.abs(gy), 255)) if u8 else hl.sqrt(gx * gx + gy * gy)
        outputs = [out]
    elif name == "unsharp":
        hf, blur = sep(c, "")
        out = f("unsharp")
        if u8:
            out[x, y] = hl.u8(hl.clamp(2 * hl.i16(params[0][x, y]) - hl.i16(blur[x, y]), 0, 255))
        else:
            out[x, y] = hl.clamp(2.0 * params[0][x, y] - blur[x, y], 0.0, 1.0)
        producers, outputs = [hf], [out]
    elif name == "isp_lite":
        r, gr, gb, b = clamped
        for ch, src in zip("rgb", (r, None, b)):
            lin = f(f"lin_{ch}")
            if u8:
                v = hl.u8((hl.u16(gr[x, y]) + hl.u16(gb[x, y]) + 1) >> 1) if src is None else src[x, y]
                q = hl.min((hl.u32(v) * round(WB[ch] * 256) + 128) >> 8, 255)
                lin[x, y] = hl.u8(hl.sqrt(hl.f32(q) * 255.0) + 0.5)
            else:
                v = (gr[x, y] + gb[x, y]) * 0.5 if src is None else src[x, y]
                lin[x, y] = hl.sqrt(hl.min(v * WB[ch], 1.0))
            dn = f(f"dn_{ch}")
            wts = [
                (dx, dy, wgt)
                for dy, row in zip((-1, 0, 1), ((1, 2, 1), (2, 4, 2), (1, 2, 1)))
                for dx, wgt in zip((-1, 0, 1), row)
            ]
            if u8:
                s = sum((hl.u16(lin[x + dx, y + dy]) * wgt for dx, dy, wgt in wts[1:]), hl.u16(lin[x - 1, y - 1]))
                dn[x, y] = hl.u8((s + 8) >> 4)
            else:
                dn[x, y] = sum(
                    (lin[x + dx, y + dy] * (wgt / 16.0) for dx, dy, wgt in wts[1:]), lin[x - 1, y - 1] * (1 / 16.0)
                )
            out = f(f"out_{ch}")
            if u8:
                out[x, y] = hl.u8((hl.u16(dn[2 * x, 2 * y]) + hl.u16(dn[2 * x + 1, 2 * y]) + hl.u16(dn[2 * x, 2 * y + 1])
                                   + hl.u16(dn[2 * x + 1, 2 * y + 1]) + 2) >> 2)  # fmt: skip
            else:
                out[x, y] = (
                    dn[2 * x, 2 * y] + dn[2 * x + 1, 2 * y] + dn[2 * x, 2 * y + 1] + dn[2 * x + 1, 2 * y + 1]
                ) * 0.25
            producers += [lin, dn]
            outputs.append(out)
    else:
        raise ValueError(name)

    per_output = len(producers) // max(1, len(outputs)) if name == "isp_lite" else len(producers)
    for i, out in enumerate(outputs):
        tile_w = 128 if name == "isp_lite" else 256
        out.tile(x, y, xo, yo, xi, yi, tile_w, 32).vectorize(xi, lanes).parallel(yo)
        mine = producers[i * per_output : (i + 1) * per_output] if name == "isp_lite" else producers
        for p in mine:
            p.compute_at(out, xo).vectorize(x, lanes)
    # the clamped input staged per tile: with repeat_edge inlined into the loads, Halide
    # 21 clamps every vector load (6x slower on the 3x3 box at 4K, measured)
    users = {"isp_lite": [[0], [1, 2], [3]]}.get(name, [[0]])
    for out, used in zip(outputs, users):
        for i in used:
            clamped[i].compute_at(out, xo).vectorize(x, lanes)
    pipeline = hl.Pipeline(outputs)
    target = hl.get_jit_target_from_environment()
    pipeline.compile_jit(target)
    for p, a in zip(params, ins):
        p.set(hl.Buffer(np.ascontiguousarray(a[:, :, 0])))
    oh, ow = ins[0].shape[:2]
    if name == "isp_lite":
        oh, ow = oh // 2, ow // 2
    arrays = [np.empty((oh, ow), ins[0].dtype) for _ in outputs]
    buffers = [hl.Buffer(a) for a in arrays]
    target_buffers = buffers[0] if len(buffers) == 1 else buffers

    def run() -> list[np.ndarray]:
        pipeline.realize(target_buffers)
        return arrays

    return run


def _halide_table(name: str, t: str, ins: list[np.ndarray]) -> Runner:
    """gamma_down and lut_blur in Halide: the table a Func over a Buffer, tiles as above."""
    import halide as hl

    x, y = hl.Var("x"), hl.Var("y")
    xo, yo, xi, yi = hl.Var("xo"), hl.Var("yo"), hl.Var("xi"), hl.Var("yi")
    u8 = t == "u8"
    lanes = 32 if u8 else 16
    table = _gamma(t)
    table_buffer = hl.Buffer(table)
    lut, i = hl.Func("lut"), hl.Var("i")
    lut[i] = table_buffer[i]
    param = hl.ImageParam(hl.UInt(8), 2, "in0")
    h, w = ins[0].shape[:2]
    out = hl.Func(name)
    if name == "gamma_down":
        out[x, y] = lut[hl.i32(param[2 * x, 2 * y])]
        oh, ow = h // 2, w // 2
        staged = []
    else:
        g = hl.Func("g")
        g[x, y] = lut[hl.i32(hl.BoundaryConditions.repeat_edge(param)[x, y])]
        taps = [g[x + dx, y + dy] for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
        if u8:
            s = hl.u16(taps[0])
            for tp in taps[1:]:
                s = s + hl.u16(tp)
            out[x, y] = hl.u8((s + 4) / 9)
        else:
            s = taps[0]
            for tp in taps[1:]:
                s = s + tp
            out[x, y] = s * np.float32(1.0 / 9.0)
        oh, ow = h, w
        staged = [g]
    out.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, lanes).parallel(yo)
    for p in staged:
        p.compute_at(out, xo).vectorize(x, lanes)
    out.compile_jit(hl.get_jit_target_from_environment())
    param.set(hl.Buffer(np.ascontiguousarray(ins[0][:, :, 0])))
    array = np.empty((oh, ow), table.dtype)
    buffer = hl.Buffer(array)

    def run() -> list[np.ndarray]:
        out.realize(buffer)
        assert table.size == table_buffer.width()  # the table (and its memory) live as long as this runner
        return [array]

    return run
