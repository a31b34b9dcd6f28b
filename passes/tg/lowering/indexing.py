"""Element rules of the indexing ops: expand, fill, trilu, one_hot and the gathers.

A gather reads its index from the index tensor (an element like any other, possibly
computed inline), turns it into an SSA `index` (`arith.index_cast`), counts a negative one
from the end of its dim, and reads the data there. tg defines an index outside [-n, n) to
read zero, so no kernel faults on bad data: a read from a buffer becomes `kernel.load ...
pad 0` (bounds checked by the load itself); a value computed inline is computed with its
own reads guarded, and selected away where the index is outside.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from tessel.dialects import tg
from tessel.dialects.tg.base import flag, integer
from tessel.ir import dtypes
from tessel.passes.tg.lowering.index_maps import Index, affine_n, broadcast_index
from tessel.passes.tg.lowering.scalar import ElementBuilder, compute_type, element_of, number, rule, shape_of

INDEX = IndexType()


def index_of(b: ElementBuilder, raw: SSAValue, n: int) -> SSAValue:
    """An index value read from data (i32/i64) as an `index` in ONNX's convention: a
    negative one counts from the end, -1 is n - 1."""
    i = b.emit(arith.IndexCastOp(raw, INDEX))
    negative = b.emit(arith.CmpiOp(i, b.const(0, INDEX), "slt"))
    return b.emit(arith.SelectOp(negative, b.emit(arith.AddiOp(i, b.const(n, INDEX))), i))


def within(b: ElementBuilder, i: SSAValue, n: int) -> SSAValue:
    """i1: 0 <= i < n."""
    lo = b.emit(arith.CmpiOp(i, b.const(0, INDEX), "sge"))
    hi = b.emit(arith.CmpiOp(i, b.const(n, INDEX), "slt"))
    return b.emit(arith.AndIOp(lo, hi))


def all_of(b: ElementBuilder, conditions: list[SSAValue]) -> SSAValue | None:
    result: SSAValue | None = None
    for c in conditions:
        result = c if result is None else b.emit(arith.AndIOp(result, c))
    return result


def read_at(b: ElementBuilder, v: SSAValue, idx: Index, inside: SSAValue | None) -> SSAValue:
    """Element `idx` of tg value v, zero where `inside` is false (idx may then be out of
    bounds): a padded load from v's buffer, or v computed with guarded reads. Without a
    condition, idx is in bounds and the read is plain."""
    if inside is None:
        return b.value(v, idx)
    if v in b.buffers:
        return b.load(b.buffers[v], idx, element_of(v), pad=0)
    b.guarded += 1
    value = b.value(v, idx)
    b.guarded -= 1
    return b.emit(arith.SelectOp(inside, value, b.const(0, value.type)))


# --------------------------------------------------------------------------- broadcasting and masks


@rule(tg.ExpandOp)
def _expand(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    src = op.operands[0]
    return b.value(src, broadcast_index(idx, shape_of(src), shape_of(op.results[0])))


@rule(tg.FillOp)
def _fill(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    return b.const(number(op.properties["value"]), compute_type(element_of(op.results[0])))


@rule(tg.TriluOp)
def _trilu(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    x = b.value(op.operands[0], idx)
    k = integer(op.properties, "k")
    diagonal = b.ssa(affine_n(b, [idx[-2], idx[-1]], lambda i, j: j - i))
    keep = b.emit(arith.CmpiOp(diagonal, b.const(k, INDEX), "sge" if flag(op.properties, "upper") else "sle"))
    return b.emit(arith.SelectOp(keep, x, b.const(0, x.type)))


@rule(tg.OneHotOp)
def _one_hot(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    indices, values = op.operands
    axis = integer(op.properties, "axis")
    depth = integer(op.properties, "depth")
    raw = b.value(indices, [*idx[:axis], *idx[axis + 1 :]])
    if dtypes.is_float(element_of(indices)):
        raw = b.emit(arith.FPToSIOp(raw, i64))  # ONNX casts float indices to integers (toward zero)
    i = b.emit(arith.IndexCastOp(raw, INDEX))
    negative = b.emit(arith.CmpiOp(i, b.const(0, INDEX), "slt"))
    i = b.emit(arith.SelectOp(negative, b.emit(arith.AddiOp(i, b.const(depth, INDEX))), i))
    hit = b.emit(arith.CmpiOp(i, b.ssa(idx[axis]), "eq"))
    on = b.value(values, [AffineExpr.constant(1)])
    off = b.value(values, [AffineExpr.constant(0)])
    return b.emit(arith.SelectOp(hit, on, off))


# --------------------------------------------------------------------------- gathers


@rule(tg.GatherOp)
def _gather(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    data, indices = op.operands
    axis = integer(op.properties, "axis")
    q = len(shape_of(indices))
    n = shape_of(data)[axis]
    i = index_of(b, b.value(indices, idx[axis : axis + q]), n)
    return read_at(b, data, [*idx[:axis], i, *idx[axis + q :]], within(b, i, n))


@rule(tg.GatherElementsOp)
def _gather_elements(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    data, indices = op.operands
    axis = integer(op.properties, "axis")
    n = shape_of(data)[axis]
    i = index_of(b, b.value(indices, idx), n)
    return read_at(b, data, [*idx[:axis], i, *idx[axis + 1 :]], within(b, i, n))


@rule(tg.GatherNdOp)
def _gather_nd(b: ElementBuilder, op: Operation, idx: Index) -> SSAValue:
    data, indices = op.operands
    batch = integer(op.properties, "batch_dims")
    index_shape = shape_of(indices)
    k = index_shape[-1]
    lead = idx[: len(index_shape) - 1]  # the batch dims, then the dims of the index tuples
    coords, checks = [], []
    for j in range(k):
        n = shape_of(data)[batch + j]
        c = index_of(b, b.value(indices, [*lead, AffineExpr.constant(j)]), n)
        coords.append(c)
        checks.append(within(b, c, n))
    rest = idx[len(index_shape) - 1 :]
    return read_at(b, data, [*lead[:batch], *coords, *rest], all_of(b, checks))
