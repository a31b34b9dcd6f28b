"""Kernels of the resampling ops: grid_sample's element rule and col2im's reduction.

grid_sample reads the sample position from the grid (one value per spatial dim), maps it
to pixel coordinates in the compute type exactly as the op's numpy meaning does
(dialects/tg/resample.py), and sums its taps (one, 2 per dim, or 4 per dim) with their
weights; a tap's index is an SSA value, so its read is a gather. col2im is a reduction over
the block's taps: a pixel takes, from each tap, the column whose block put that tap on it,
when the stride divides the distance and the block exists.
"""

from __future__ import annotations

import itertools
import math

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, ints
from tessel.dialects.tg.resample import CUBIC_A, borders, col2im_blocks
from tessel.passes.tg.lowering.index_maps import Index
from tessel.passes.tg.lowering.indexing import INDEX, all_of, read_at, within
from tessel.passes.tg.lowering.scalar import ElementBuilder, compute_type, element_of, rule, shape_of
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, anchor

# --------------------------------------------------------------------------- grid_sample


class Floats:
    """Float arithmetic in one compute type, for the coordinate formulas."""

    def __init__(self, b: ElementBuilder, t) -> None:  # noqa: ANN001
        self.b, self.t = b, t

    def c(self, value: float) -> SSAValue:
        return self.b.const(value, self.t)

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.AddfOp(x, y))

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.SubfOp(x, y))

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.MulfOp(x, y))

    def div(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.DivfOp(x, y))

    def less(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.CmpfOp(x, y, "olt"))

    def select(self, cond: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.b.emit(arith.SelectOp(cond, x, y))

    def floor(self, x: SSAValue) -> SSAValue:
        return self.b.emit(mathd.FloorOp(x))

    def to_index(self, x: SSAValue) -> SSAValue:
        """An integral float as an index (toward zero, like int())."""
        return self.b.emit(arith.IndexCastOp(self.b.emit(arith.FPToSIOp(x, i64)), INDEX))

    def from_index(self, i: SSAValue) -> SSAValue:
        return self.b.emit(arith.SIToFPOp(self.b.emit(arith.IndexCastOp(i, i64)), self.t))


def _reflect(f: Floats, v: SSAValue, low: float, high: float) -> SSAValue:
    """tg.grid_sample's reflect: fold v into [low, high] by mirroring at the borders."""
    span = high - low
    if span <= 0:
        return f.c(low)
    lo, hi = f.c(low), f.c(high)
    below, above = f.less(v, lo), f.less(hi, v)
    distance = f.select(below, f.sub(lo, v), f.select(above, f.sub(v, hi), f.c(0.0)))
    flips = f.floor(f.div(distance, f.c(span)))  # distance >= 0: floor is trunc
    rest = f.sub(distance, f.mul(flips, f.c(span)))
    half = f.mul(flips, f.c(0.5))
    even = f.b.emit(arith.CmpfOp(f.floor(half), half, "oeq"))
    from_low, from_high = f.add(lo, rest), f.sub(hi, rest)
    folded = f.select(below, f.select(even, from_low, from_high), f.select(even, from_high, from_low))
    return f.select(f.b.emit(arith.OrIOp(below, above)), folded, v)


def _cubic_weights(f: Floats, t: SSAValue) -> list[SSAValue]:
    """Keys' weights of the taps at -1, 0, 1, 2 (the op's cubic_weights, op for op)."""
    a, one, two = f.c(CUBIC_A), f.c(1.0), f.c(2.0)

    def near(d: SSAValue) -> SSAValue:
        inner = f.sub(f.mul(f.add(a, two), d), f.add(a, f.c(3.0)))
        return f.add(f.mul(f.mul(inner, d), d), one)

    def far(d: SSAValue) -> SSAValue:
        inner = f.add(f.mul(f.sub(f.mul(a, d), f.mul(f.c(5.0), a)), d), f.mul(f.c(8.0), a))
        return f.sub(f.mul(inner, d), f.mul(f.c(4.0), a))

    return [far(f.add(t, one)), near(t), near(f.sub(one, t)), far(f.sub(two, t))]


@rule(tg.GridSampleOp)
def _grid_sample(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x, grid = op.operands
    assert isinstance(op, tg.GridSampleOp)
    mode, padding = op.mode.data, op.padding_mode.data
    align = flag(op.properties, "align_corners")
    spatial = shape_of(x)[2:]
    r = len(spatial)
    f = Floats(b, compute_type(element_of(x)))
    taps: list[list[tuple[SSAValue, SSAValue | None]]] = []
    for d, size in enumerate(spatial):
        g = b.value(grid, [idx[0], *idx[2:], AffineExpr.constant(r - 1 - d)])
        if align:
            v = f.mul(f.div(f.add(g, f.c(1.0)), f.c(2.0)), f.c(size - 1.0))
        else:
            v = f.div(f.sub(f.mul(f.add(g, f.c(1.0)), f.c(float(size))), f.c(1.0)), f.c(2.0))
        if mode == "nearest":
            v = b.emit(mathd.RoundEvenOp(v))
        low, high = borders(size, align)
        if padding == "border":
            outside = b.emit(arith.OrIOp(f.less(v, f.c(low)), f.less(f.c(high), v)))
            clamped = b.emit(arith.MinimumfOp(b.emit(arith.MaximumfOp(v, f.c(0.0))), f.c(size - 1.0)))
            v = f.select(outside, clamped, v)
        elif padding == "reflection":
            v = _reflect(f, v, low, high)
        if mode == "nearest":
            taps.append([(f.to_index(v), None)])
            continue
        base = f.floor(v)
        t = f.sub(v, base)
        i0 = f.to_index(base)
        if mode == "linear":
            weights = [f.sub(f.c(1.0), t), t]
        else:
            weights = _cubic_weights(f, t)
        first = 0 if mode == "linear" else -1
        taps.append([(b.emit(arith.AddiOp(i0, b.const(first + k, INDEX))), w) for k, w in enumerate(weights)])
    total: SSAValue | None = None
    for combo in itertools.product(*taps):
        index, checks, weight = [], [], None
        for d, (i, w) in enumerate(combo):
            j, inside = _tap_index(f, i, spatial[d], padding, align)
            index.append(j)
            checks.append(inside)
            if w is not None:
                weight = w if weight is None else f.mul(weight, w)
        value = read_at(b, x, [idx[0], idx[1], *index], all_of(b, checks))
        term = value if weight is None else f.mul(value, weight)
        total = term if total is None else f.add(total, term)
    assert total is not None
    return total


def _tap_index(f: Floats, i: SSAValue, size: int, padding: str, align: bool) -> tuple[SSAValue, SSAValue]:
    """Where a tap at integer position i reads under the padding mode, and whether that is
    inside the input (always, for border and reflection, unless the grid held a NaN: the
    read is guarded all the same, so no grid value makes a kernel fault)."""
    b = f.b
    if padding == "border":
        clamped = b.emit(arith.MaxSIOp(i, b.const(0, INDEX)))
        i = b.emit(arith.MinSIOp(clamped, b.const(size - 1, INDEX)))
    elif padding == "reflection":
        i = f.to_index(_reflect(f, f.from_index(i), *borders(size, align)))
    return i, within(b, i, size)


# --------------------------------------------------------------------------- col2im


def _affine(idx: Index) -> list[AffineExpr]:
    assert all(isinstance(e, AffineExpr) for e in idx)
    return [e for e in idx if isinstance(e, AffineExpr)]


@anchor(tg.Col2ImOp)
def _col2im(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    """y[n, c, p] = sum over taps k of x[n, c * K + k, block(p, k)], where block(p, k)_d =
    (p_d + pad_d - k_d * dilation_d) / stride_d must divide evenly and lie in the grid."""
    (x,) = op.operands
    p = op.properties
    image, block = ints(p, "image_shape"), ints(p, "block_shape")
    dilations, pads, strides = ints(p, "dilations"), ints(p, "pads"), ints(p, "strides")
    blocks = col2im_blocks(image, block, dilations, pads, strides)
    r = len(image)
    et = element_of(x)
    acc_t = compute_type(et)
    taps = math.prod(block)

    def body(b: ElementBuilder, s_index: Index, k_index: Index) -> SSAValue:
        s, k = _affine(s_index), _affine(k_index)  # a reduction stage's axes
        checks: list[SSAValue] = []
        cells: list[AffineExpr] = []
        for d in range(r):
            distance = s[2 + d] + pads[d] - k[d] * dilations[d]
            cells.append(distance // strides[d])
            if strides[d] > 1:
                rest = b.ssa(distance % strides[d])
                checks.append(b.emit(arith.CmpiOp(rest, b.const(0, IndexType()), "eq")))
        inside = b.in_bounds(list(cells), blocks)
        cond = all_of(b, [*checks, *([inside] if inside is not None else [])])
        tap, column = AffineExpr.constant(0), AffineExpr.constant(0)
        for d in range(r):
            tap = tap * block[d] + k[d]
            column = column * blocks[d] + cells[d]
        at: Index = [s[0], s[1] * taps + tap, column]
        if x in b.buffers:
            return b.load(b.buffers[x], at, et, pad=0, when=cond)
        return read_at(b, x, at, cond)

    spatial = [(f"o{d}", n) for d, n in enumerate(shape_of(op.results[0]))]
    reduce = [(f"k{d}", n) for d, n in enumerate(block)]
    kb.reduction("col2im", dests[0], et, spatial, reduce, "add", 0, acc_t, body, then)
