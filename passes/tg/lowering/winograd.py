"""The kernel.compute stages of tg.conv2d_winograd (tg-winograd): F(m x m, r x r) as five
stages: four element-wise transforms (their a-term sums written out in the body) and one
product the default schedules tile as a convolution's.

    wino_rows   t1[n, i, co, ty, x, ci] = sum_p bt[i, p] * x[n, co, ty*m + p - top, x - left, ci]
                (zero outside x: the padding and the tiles' overhang, read with bounds
                checks here instead of copied out by a stage of its own: one LLVM module
                less per layer, and one pass less over the input)
    wino_in     v[n, i, j, co, t, ci]   = sum_q bt[j, q] * t1[n, i, co, t / TW, (t % TW)*m + q, ci]
    wino_gemm   M[n, i, j, mo, t, mi]   = sum_(co, ci) v[n, i, j, co, t, ci] * u[i*a + j, mo, co, ci, mi]
    wino_cols   o1[n, i, mo, s, t, mi]  = sum_j at[s, j] * M[n, i, j, mo, t, mi]
    wino_out    y[n, mo, oh, ow, mi]    = then(bias + sum_i at[oh % m, i] * o1[n, i, mo, ow % m, t(oh, ow), mi])

The transforms are applied one dimension at a time (B^T d B as two products of a terms,
not one of a^2): 2a multiply-adds a transformed element instead of a^2. They are element-
wise stages, not reductions: memory-bound, they gain nothing from a register tile, whose
unrolled code cost ResNet-18 0.8 s of kernel-to-loops (1.74 -> 0.95 s). The tiles are one
axis t = ty * TW + tx, so the product's register tile runs along the tiles (as a
convolution's runs along a row) and its columns along the output-channel blocks. The
vectors are the channel blocks (ci, mi) throughout.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import ints
from tessel.dialects.tg.winograd import output_size
from tessel.passes.tg.lowering.conv_stages import blocked_epilogue
from tessel.passes.tg.lowering.index_maps import IndexElem, expr
from tessel.passes.tg.lowering.scalar import ElementBuilder, Index, compute_type, element_of, shape_of
from tessel.passes.tg.lowering.stages import KernelBuilder, Then, add, anchor, mul, read


@anchor(tg.Conv2dWinogradOp)
def _conv2d_winograd(kb: KernelBuilder, op: Operation, dests: list[SSAValue], then: Then) -> None:
    assert isinstance(op, tg.Conv2dWinogradOp)
    x, u, bt, at = op.operands[:4]
    bias = op.operands[4] if len(op.operands) == 5 else None
    et = element_of(op.results[0])
    acc = compute_type(et)
    n, co, h, wd, cb = shape_of(x)
    _, mo, _, _, mb = shape_of(u)
    a = shape_of(bt)[0]
    m, oh, ow = output_size(op)
    th, tw = -(-oh // m), -(-ow // m)
    tiles = th * tw
    rows, cols = th * m + a - m, tw * m + a - m  # the padded input the tiles read
    top, left = ints(op.properties, "pads")[:2]
    # the borders: rows and columns the tiles read outside x are zeros
    pad = 0 if any((top, left, rows - h - top, cols - wd - left)) else None

    def stage(name: str, shape: list[int]) -> tuple[SSAValue, SSAValue]:
        t = TensorType(et, shape)
        buffer = kb.temp(t, name)
        return buffer, kb.placeholder(t, buffer)

    t1_buf, t1 = stage("wino_rows", [n, a, co, th, cols, cb])

    def along_rows(b: ElementBuilder, s: Index) -> SSAValue:
        y = expr(s[3]) * m - top
        column = expr(s[4]) - left
        return _row_times(b, bt, s[1], a, lambda p: read(b, x, [s[0], s[2], y + p, column, s[5]], pad))

    kb.elementwise("wino_rows", t1_buf, et, along_rows)

    v_buf, v = stage("wino_in", [n, a, a, co, tiles, cb])

    def tile_in(b: ElementBuilder, s: Index) -> SSAValue:
        t = expr(s[4])
        x0 = (t % tw) * m
        return _row_times(b, bt, s[2], a, lambda q: b.value(t1, [s[0], s[1], s[3], t // tw, x0 + q, s[5]]))

    kb.elementwise("wino_in", v_buf, et, tile_in)

    m_buf, mm = stage("wino_gemm", [n, a, a, mo, tiles, mb])

    def gemm_body(b: ElementBuilder, s: Index, r: Index) -> SSAValue:
        xi = expr(s[1]) * a + expr(s[2])
        return mul(b, b.value(v, [s[0], s[1], s[2], r[0], s[4], r[1]]), b.value(u, [xi, s[3], r[0], r[1], s[5]]))

    spatial = [("n", n), ("i", a), ("j", a), ("mo", mo), ("t", tiles), ("mi", mb)]
    kb.reduction("wino_gemm", m_buf, et, spatial, [("co", co), ("ci", cb)], "add", 0, acc, gemm_body)

    o1_buf, o1 = stage("wino_cols", [n, a, mo, m, tiles, mb])

    def cols_out(b: ElementBuilder, s: Index) -> SSAValue:
        return _row_times(b, at, s[3], a, lambda j: b.value(mm, [s[0], s[1], j, s[2], s[4], s[5]]))

    kb.elementwise("wino_cols", o1_buf, et, cols_out)

    epilogue = blocked_epilogue(then, bias, mb)

    def out(b: ElementBuilder, s: Index) -> SSAValue:
        y, x_ = expr(s[2]), expr(s[3])
        t = (y // m) * tw + x_ // m
        total = _row_times(b, at, y % m, a, lambda i: b.value(o1, [s[0], i, s[1], x_ % m, t, s[4]]))
        return epilogue(b, s, total)

    kb.elementwise("wino_out", dests[0], et, out)


def _row_times(
    b: ElementBuilder, matrix: SSAValue, row: IndexElem, count: int, data: Callable[[AffineExpr], SSAValue]
) -> SSAValue:
    """sum over k < count of matrix[row, k] * data(k), in order (a multiply-add chain): one
    point of a transform applied along one dimension."""
    total: SSAValue | None = None
    for k in map(AffineExpr.constant, range(count)):
        term = mul(b, b.value(matrix, [row, k]), data(k))
        total = term if total is None else add(b, total, term)
    assert total is not None, "a transform has at least one term"
    return total
