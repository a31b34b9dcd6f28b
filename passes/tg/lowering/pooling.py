"""The kernel.compute stages of pooling: one reduction over the window taps per output
element, reading the input through a padded load (positions outside the input read the
combination's identity and, where it matters, are not counted).

- max: combine max from the lowest value; the optional Indices output is a second stage,
  the smallest flat input index whose tap equals the max (min over taps).
- average: combine add; the then region divides by the number of counted taps, index
  arithmetic of the output position (no per-tap test).
- Lp: combine add of |x|^p (p multiplications); the then region takes the p-th root.
- global average: a reduction over H and W, scaled in the then region.

In the blocked layout (`layout = "NCHW16c"`) the output has a fifth axis, the channel lane,
which indexes the input's last dim: the default schedule vectorizes it, 16 contiguous lanes.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, integer, ints
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import expr
from tessel.passes.tg.lowering.scalar import (
    ElementBuilder,
    Index,
    compute_type,
    element_of,
    float_type,
    lowest,
    shape_of,
)
from tessel.passes.tg.lowering.stages import (
    KernelBuilder,
    Then,
    _axes,
    _window_index,
    anchor,
    max_combiner,
    read,
)


def _tap_index(s: Index, r: Index, strides: list[int], pads: list[int], dilations: list[int]) -> Index:
    """The input position of window tap r of output s; a blocked layout's trailing channel
    lane (NCHW16c: s[4]) passes through."""
    return [*_window_index(s, r, strides, pads, dilations), *s[2 + len(strides) :]]


def _windows(op: Operation) -> tuple[list[int], list[int], list[int], list[int]]:
    p = op.properties
    return list(ints(p, "kernel")), list(ints(p, "strides")), list(ints(p, "pads")), list(ints(p, "dilations"))


@anchor(tg.MaxPool2dOp, tg.MaxPool3dOp)
def _max_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    kernel_, strides, pads, dilations = _windows(op)
    et = element_of(x)
    out_shape = shape_of(op.results[0])
    fill = lowest(et)
    spatial = _axes("o", out_shape)
    taps = [(f"t{d}", k) for d, k in enumerate(kernel_)]

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return read(b, x, _tap_index(s, r, strides, pads, dilations), pad=fill)

    kb.reduction("max_pool", dests[0], et, spatial, taps, max_combiner(et), fill, compute_type(et), body, then)
    if len(dests) == 1:
        return
    # Indices: the smallest flat input index among in-bounds taps equal to the max (the
    # first in row-major window order, as ONNX), -1 when the window holds no input.
    in_shape = shape_of(x)
    order = integer(op.properties, "storage_order", default=0)
    big = (1 << 63) - 1
    values = dests[0]

    def index_body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        idx = _window_index(s, r, strides, pads, dilations)
        tap = read(b, x, idx, pad=fill)
        best = b.load(values, s, et)
        inside = b.in_bounds(idx[2:], in_shape[2:])
        hit = b.emit(arith.CmpfOp(tap, best, "oeq") if dtypes.is_float(et) else arith.CmpiOp(tap, best, "eq"))
        cond = hit if inside is None else b.emit(arith.AndIOp(inside, hit))
        if order == 1 and len(idx) == 4:
            inner = expr(idx[2]) + expr(idx[3]) * in_shape[2]
        else:
            inner = AffineExpr.constant(0)
            for d, e in enumerate(idx[2:]):
                inner = inner * in_shape[2 + d] + expr(e)
        flat = (expr(s[0]) * in_shape[1] + expr(s[1])) * math.prod(in_shape[2:]) + inner
        flat_i64 = b.emit(arith.IndexCastOp(b.ssa(flat), i64))
        return b.emit(arith.SelectOp(cond, flat_i64, b.const(big, i64)))

    def none_is_minus_one(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        empty = b.emit(arith.CmpiOp(acc, b.const(big, i64), "eq"))
        return b.emit(arith.SelectOp(empty, b.const(-1, i64), acc))

    kb.reduction("max_pool_indices", dests[1], i64, spatial, taps, "min", big, i64, index_body, none_is_minus_one)


@anchor(tg.AvgPool2dOp, tg.AvgPool3dOp)
def _avg_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    kernel_, strides, pads, dilations = _windows(op)
    include_pad = flag(op.properties, "count_include_pad")
    et = element_of(x)
    acc_t = compute_type(et)
    in_shape = shape_of(x)
    sp = len(kernel_)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return read(b, x, _tap_index(s, r, strides, pads, dilations), pad=0)

    def divide(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        count: SSAValue | None = None
        for d in range(sp):
            lo, hi = (-pads[d], in_shape[2 + d] + pads[sp + d]) if include_pad else (0, in_shape[2 + d])
            c = _tap_count(b, expr(s[2 + d]) * strides[d] - pads[d], kernel_[d], dilations[d], lo, hi)
            count = c if count is None else b.emit(arith.MuliOp(count, c))
        assert count is not None
        as_float = b.emit(arith.SIToFPOp(b.emit(arith.IndexCastOp(count, i64)), float_type(acc_t)))
        return then(b, s, b.emit(arith.DivfOp(acc, as_float)))

    kb.reduction(
        "avg_pool",
        dests[0],
        et,
        _axes("o", shape_of(op.results[0])),
        [(f"t{d}", k) for d, k in enumerate(kernel_)],
        "add",
        0,
        acc_t,
        body,
        divide,
    )


def _tap_count(b: ElementBuilder, start: AffineExpr, k: int, dilation: int, lo: int, hi: int) -> SSAValue:
    """How many taps start + t*dilation (t < k) fall in [lo, hi): index arithmetic."""
    zero, km1 = b.const(0, IndexType()), b.const(k - 1, IndexType())
    st = b.ssa(start)
    d = b.const(dilation, IndexType())
    first = b.emit(arith.CeilDivSIOp(b.emit(arith.SubiOp(b.const(lo, IndexType()), st)), d))
    first = b.emit(arith.MaxSIOp(first, zero))
    last = b.emit(arith.FloorDivSIOp(b.emit(arith.SubiOp(b.const(hi - 1, IndexType()), st)), d))
    last = b.emit(arith.MinSIOp(last, km1))
    count = b.emit(arith.AddiOp(b.emit(arith.SubiOp(last, first)), b.const(1, IndexType())))
    return b.emit(arith.MaxSIOp(count, zero))


@anchor(tg.GlobalAvgPool2dOp)
def _global_avg_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    n, c, h, w, *lane = shape_of(x)  # (lane: NCHW16c's block)
    et = element_of(x)
    acc_t = compute_type(et)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        return b.value(x, [s[0], s[1], r[0], r[1], *s[4:]])

    def scale(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        return then(b, s, b.emit(arith.MulfOp(acc, b.const(1.0 / (h * w), acc_t))))

    kb.reduction(
        "global_avg_pool",
        dests[0],
        et,
        _axes("o", (n, c, 1, 1, *lane)),
        [("h", h), ("w", w)],
        "add",
        0,
        acc_t,
        body,
        scale,
    )


def power(b: ElementBuilder, x: SSAValue, p: int) -> SSAValue:
    """x^p for a positive integer p by square and multiply (no pow call in the hot loop)."""
    result: SSAValue | None = None
    base = x
    while p:
        if p & 1:
            result = base if result is None else b.emit(arith.MulfOp(result, base))
        p >>= 1
        if p:
            base = b.emit(arith.MulfOp(base, base))
    assert result is not None
    return result


@anchor(tg.LpPool2dOp, tg.LpPool3dOp)
def _lp_pool(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    x = op.operands[0]
    kernel_, strides, pads, dilations = _windows(op)
    p = integer(op.properties, "p")
    et = element_of(x)
    acc_t = compute_type(et)

    def body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        tap = read(b, x, _window_index(s, r, strides, pads, dilations), pad=0)
        return power(b, b.emit(mathd.AbsFOp(tap)), p)

    def root(b: ElementBuilder, s: Index, acc: SSAValue) -> SSAValue:
        if p == 1:
            return then(b, s, acc)
        if p == 2:
            return then(b, s, b.emit(mathd.SqrtOp(acc)))
        return then(b, s, b.emit(mathd.PowFOp(acc, b.const(1.0 / p, acc_t))))

    taps = [(f"t{d}", k) for d, k in enumerate(kernel_)]
    kb.reduction("lp_pool", dests[0], et, _axes("o", shape_of(op.results[0])), taps, "add", 0, acc_t, body, root)
